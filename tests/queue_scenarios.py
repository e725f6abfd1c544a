"""The environment of the Kueue scenarios on a real controller (tests/e2e/test_queues.py and
tests/e2e/test_explain_on_server.py, whose runs also recorded the fixtures of
tests/workloads/test_explain_interpret.py): three teams sharing v5e chips and Spot L4 GPUs through
one cohort. q-research 16 chips, q-nlp and q-serving 8 chips and 2 GPUs each; q-serving, the
inference team, may preempt to borrow. Only the TPU pool differs between the modules."""

from __future__ import annotations

from typing import Any

from helpers import base_config

TEAMS = ("q-research", "q-nlp", "q-serving")  # not the other e2e tests' namespaces


def queue_scenario_config(tpu_pool: dict[str, Any]) -> dict[str, Any]:
    """The config (a dict, as written in config/<env>.yaml) with ``tpu_pool`` as its only TPU pool."""
    data = base_config()
    data["tpu_pools"] = [tpu_pool]
    data["gpu_pools"] = [{"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 4, "consumption": "spot"}]
    data["teams"] = [
        {"name": "q-research", "google_group": "r@acme.example.com", "accelerators": {"v5e": 16}},
        {"name": "q-nlp", "google_group": "n@acme.example.com", "accelerators": {"v5e": 8, "l4": 2}},
        {"name": "q-serving", "google_group": "s@acme.example.com", "accelerators": {"v5e": 8, "l4": 2}},
    ]
    data["queues"] = {"teams": {"q-serving": {"preempt_when_borrowing": True}}}
    return data
