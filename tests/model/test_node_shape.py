"""Nodes as GKE creates them, derived from the same plans the node-pool constructs render."""

from __future__ import annotations

import pytest

from gke_accel.model import ConsumptionSpec, GpuPoolSpec, GpuSharingSpec, TpuPoolSpec, plan_gpu_pool, plan_tpu_pool
from gke_accel.model.pools.node_shape import mig_partitions, node_shape

REGION = "us-central1"
ZONES = ("us-central1-a", "us-central1-b")


def test_spot_v5e_node_carries_tpu_labels_taints_and_chips() -> None:
    [plan] = plan_tpu_pool(
        TpuPoolSpec(name="v5e", generation="v5e", topology="2x2", consumption=ConsumptionSpec("spot")),
        region=REGION,
        cluster_zones=ZONES,
    )
    shape = node_shape(plan)
    assert shape.selector() == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "2x2",
        "cloud.google.com/gke-spot": "true",
        "gke-accel/capacity": "spot",
    }
    assert shape.labels["cloud.google.com/gke-nodepool"] == "v5e"
    assert shape.extended_resources() == {"google.com/tpu": "4"}
    assert {(t.key, t.value, t.effect) for t in shape.taints} == {
        ("google.com/tpu", "present", "NoSchedule"),
        ("cloud.google.com/gke-spot", "true", "NoSchedule"),
    }
    assert shape.node_labels("us-central1-a")["topology.kubernetes.io/region"] == "us-central1"


def test_on_demand_gpu_node_has_no_spot_label_and_advertises_its_gpus() -> None:
    [plan] = plan_gpu_pool(GpuPoolSpec(name="l4", gpu="l4", gpus_per_node=2), region=REGION, cluster_zones=ZONES)
    shape = node_shape(plan)
    assert shape.selector() == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "gke-accel/capacity": "on-demand",
        "gke-accel/gpu-unit": "whole",
    }
    assert shape.extended_resources() == {"nvidia.com/gpu": "2"}
    assert shape.tolerations() == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]


def test_time_sharing_multiplies_advertised_gpus() -> None:
    spec = GpuPoolSpec(name="t4", gpu="t4", gpus_per_node=1, sharing=GpuSharingSpec("time-sharing", 4))
    [plan] = plan_gpu_pool(spec, region=REGION, cluster_zones=ZONES)
    shape = node_shape(plan)
    assert shape.extended_resources() == {"nvidia.com/gpu": "4"}
    assert shape.labels["cloud.google.com/gke-gpu-sharing-strategy"] == "time-sharing"
    assert shape.labels["cloud.google.com/gke-max-shared-clients-per-gpu"] == "4"


@pytest.mark.parametrize(
    ("size", "memory", "expected"),
    [
        ("1g.10gb", 80, 7),
        ("1g.20gb", 80, 4),
        ("2g.20gb", 80, 3),
        ("3g.40gb", 80, 2),
        ("7g.80gb", 80, 1),
        ("1g.5gb", 40, 7),
    ],
)
def test_mig_partitions_per_gpu_follow_compute_and_memory_slices(size: str, memory: int, expected: int) -> None:
    assert mig_partitions(size, memory) == expected


def test_mig_partitions_rejects_a_size_that_is_not_mig() -> None:
    with pytest.raises(ValueError, match="not a MIG partition size"):
        mig_partitions("half", 80)
