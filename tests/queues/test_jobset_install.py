"""Where JobSet is installed: a pure function of the environment's pools and queues
(``model.queues.install.jobset_reasons``), rendered as a Helm release by the stack (tests/synth)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import load_environment, load_environment_text
from gke_accel.model.queues.of_environment import jobset_reasons_of
from helpers import QUOTA_ONLY_CONFIG, base_config, set_path, to_yaml

CONFIG = Path(__file__).resolve().parents[2] / "config"


def reasons(data: dict[str, Any]) -> tuple[str, ...]:
    return jobset_reasons_of(load_environment_text(to_yaml(data)))


def test_shipped_environments() -> None:
    # prod (config/prod.yaml): the v5p 2x2x2 slice is 2 VMs of 4 chips; h100-train is compact, up to 2 nodes
    assert jobset_reasons_of(load_environment(CONFIG / "prod.yaml")) == (
        "pool v5p-train: a multi-host 2x2x2 slice (2 VMs)",
        "pool h100-train: compact placement for jobs over up to 2 nodes",
    )
    # dev: v5e 2x2 is one VM (single-host), l4-dev has no placement policy: only the queues need JobSet
    assert jobset_reasons_of(load_environment(CONFIG / "dev.yaml")) == (
        "queues: Kueue's jobset.x-k8s.io/jobset integration",
    )
    # the same pools without queues: nothing needs JobSet
    assert jobset_reasons_of(load_environment(QUOTA_ONLY_CONFIG)) == ()
    staging = jobset_reasons_of(load_environment(CONFIG / "staging.yaml"))
    assert staging[0] == "queues: Kueue's jobset.x-k8s.io/jobset integration"
    assert len(staging) == 1 + 4  # v5e-slice and v5e-shared's three slices: 2x4 = 2 VMs each


def test_single_host_slice_and_spread_gpu_pool_need_no_jobset() -> None:
    assert reasons(base_config()) == ()  # v5e 2x2 (1 VM), l4 without placement


@pytest.mark.parametrize(("machine", "needed"), [("ct5lp-hightpu-4t", True), ("ct5lp-hightpu-8t", False)])
def test_a_multi_host_slice_needs_jobset(machine: str, needed: bool) -> None:
    # v5e 2x4: two VMs of 4 chips on ct5lp-hightpu-4t, one VM of 8 chips on ct5lp-hightpu-8t (catalog-facts §3)
    data = set_path(base_config(), "tpu_pools[0].topology", "2x4")
    data = set_path(data, "tpu_pools[0].machine_type", machine)
    assert reasons(data) == (("pool v5e: a multi-host 2x4 slice (2 VMs)",) if needed else ())


@pytest.mark.parametrize(("max_nodes", "needed"), [(2, True), (1, False)])
def test_a_compact_gpu_pool_of_several_nodes_needs_jobset(max_nodes: int, needed: bool) -> None:
    data = set_path(base_config(), "gpu_pools[0]", {
        "name": "h100", "gpu": "h100", "gpus_per_node": 8, "zones": ["us-central1-a"], "placement": "compact",
        "max_nodes": max_nodes,
    })  # fmt: skip
    got = reasons(data)
    assert got == (("pool h100: compact placement for jobs over up to 2 nodes",) if needed else ())
