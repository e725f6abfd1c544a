"""MIG and GPU sharing counted in the units nodes advertise: capacity, team ceilings, Kueue flavors.

Expected per-node units from the hand-written fixtures (tests/fixtures/gke-nodes): gpu-t4-time-sharing.yaml
(1 T4 x 4 clients = 4 nvidia.com/gpu), gpu-mig-a100-1g10gb.yaml (1 A100 80GB as 1g.10gb = 7),
gpu-a100-80gb-whole.yaml (1). On main capacity and nominalQuota counted physical GPUs (code review C4)."""

from __future__ import annotations

from typing import Any

from gke_accel.model import load_environment_text
from gke_accel.model.platform.capacity import capacity_rows
from gke_accel.model.queues.of_environment import queue_plan_of
from helpers import base_config, to_yaml


def _env(extra_pools: list[dict[str, Any]], accelerators: dict[str, int]) -> Any:
    data = base_config()
    data["gpu_pools"] = extra_pools
    data["teams"] = [
        {
            "name": "nlp",
            "google_group": "nlp@acme.example.com",
            "accelerators": accelerators,
            "cpu": 64,
            "memory_gib": 256,
        }
    ]
    data["strict_capacity"] = True
    data["queues"] = {}
    return load_environment_text(to_yaml(data), expected_name="test")


SHARED_T4 = {
    "name": "t4",
    "gpu": "t4",
    "gpus_per_node": 1,
    "max_nodes": 2,
    "sharing": {"strategy": "time-sharing", "max_clients": 4},
    "zones": ["us-central1-a"],
}
WHOLE_A100 = {"name": "a100", "gpu": "a100-80gb", "gpus_per_node": 1, "max_nodes": 2, "zones": ["us-central1-a"]}
MIG_A100 = {**WHOLE_A100, "name": "a100-mig", "partition_size": "1g.10gb"}


def test_time_shared_pool_capacity_counts_shared_slots() -> None:
    env = _env([SHARED_T4], {"t4": 8})  # 2 nodes x 4 slots: a quota of 8 is within capacity
    [row] = [r for r in capacity_rows(env.pools, env.spec.teams) if r.accelerator == "nvidia-tesla-t4"]
    assert row.chips_max == 8 and not row.over_committed


def test_mig_pool_capacity_counts_instances_and_flavors_keep_mig_apart() -> None:
    env = _env([WHOLE_A100, MIG_A100], {"a100-80gb": 16})  # 2 whole + 2 x 7 instances
    [row] = [r for r in capacity_rows(env.pools, env.spec.teams) if r.accelerator == "nvidia-a100-80gb"]
    assert row.chips_max == 2 + 14
    plan = queue_plan_of(env)
    assert plan is not None
    a100 = {f.name: f for f in plan.flavors if f.accelerator == "nvidia-a100-80gb"}
    assert len(a100) == 2, "a whole-GPU pool and a MIG pool of one model share no flavor"
    mig = next(f for f in a100.values() if f.pools == ("a100-mig",))
    whole = next(f for f in a100.values() if f.pools == ("a100",))
    assert ("cloud.google.com/gke-gpu-partition-size", "1g.10gb") in mig.node_labels
    assert (mig.chips_max, whole.chips_max) == (14, 2)
    [team] = plan.teams
    assert sum(team.quota(f.name).nominal for f in a100.values()) == 16
