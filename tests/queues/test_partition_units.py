"""MIG and GPU sharing counted in the units nodes advertise: capacity, team ceilings, Kueue flavors.

Expected per-node units from the hand-written fixtures (tests/fixtures/gke-nodes): gpu-t4-time-sharing.yaml
(1 T4 x 4 clients = 4 nvidia.com/gpu), gpu-mig-a100-1g10gb.yaml (1 A100 80GB as 1g.10gb = 7),
gpu-a100-80gb-whole.yaml (1). On main capacity and nominalQuota counted physical GPUs (code review C4)."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import ConfigError, load_environment_text
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
    env = _env([SHARED_T4], {"t4-ts4": 8})  # 2 nodes x 4 slots: a quota of 8 is within capacity
    [row] = [r for r in capacity_rows(env.pools, env.spec.teams) if r.accelerator == "nvidia-tesla-t4/ts4"]
    assert row.chips_max == 8 and not row.over_committed


def test_mig_instances_and_whole_gpus_are_quotas_of_their_own() -> None:
    """W3: a team says how many whole GPUs and how many MIG instances it may use; each flavor's quota
    is in its own unit (on main, ``a100-80gb: 16`` became 2 whole GPUs + 14 MIG instances)."""
    env = _env([WHOLE_A100, MIG_A100], {"a100-80gb": 2, "a100-80gb-mig-1g-10gb": 14})
    rows = {r.accelerator: r for r in capacity_rows(env.pools, env.spec.teams)}
    assert (rows["nvidia-a100-80gb"].chips_max, rows["nvidia-a100-80gb/mig-1g-10gb"].chips_max) == (2, 14)
    plan = queue_plan_of(env)
    assert plan is not None
    by_pool = {f.pools: f for f in plan.flavors}
    whole, mig = by_pool[("a100",)], by_pool[("a100-mig",)]
    assert ("cloud.google.com/gke-gpu-partition-size", "1g.10gb") in mig.node_labels
    assert (mig.chips_max, whole.chips_max) == (14, 2)
    [team] = plan.teams
    assert (team.quota(whole.name).nominal, team.quota(mig.name).nominal) == (2, 14)


def test_a_quota_in_the_wrong_unit_names_every_field_value_and_the_units_there_are() -> None:
    with pytest.raises(ConfigError) as err:
        _env([WHOLE_A100, MIG_A100], {"a100-80gb": 16, "a100-80gb-mig-2g-5gb": 1, "t4-ts4": 2})
    text = str(err.value)
    # 2g.5gb is no MIG size of an A100 80GB (NVIDIA's MIG profiles, README source MIG)
    assert "teams[0].accelerators.a100-80gb-mig-2g-5gb: 'a100-80gb-mig-2g-5gb' is not a GPU model, split GPU" in text
    assert "teams[0].accelerators.t4-ts4: 2 is a quota for nvidia-tesla-t4/ts4, which no pool" in text
    assert "valid: a100-80gb, a100-80gb-mig-1g-10gb" in text
    assert "team quotas for nvidia-a100-80gb add up to 16 GPUs, but the pools provide at most 2" in text
