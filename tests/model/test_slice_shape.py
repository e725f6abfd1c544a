"""The shape of a TPU slice that cannot change in place: a change of it replaces the pool."""

from __future__ import annotations

from gke_accel.model import GpuPoolSpec, TpuPoolSpec, plan_gpu_pool, plan_tpu_pool

REGION = "us-central1"
ZONES = ("us-central1-a", "us-central1-b")


def tpu_shape(topology: str, machine_type: str | None = None) -> dict[str, str] | None:
    spec = TpuPoolSpec(name="v5e", generation="v5e", topology=topology, machine_type=machine_type, zone="us-central1-a")
    return plan_tpu_pool(spec, region=REGION, cluster_zones=ZONES)[0].slice_shape()


def test_single_host_topology_change_changes_the_shape() -> None:
    assert tpu_shape("2x2") == {"machine_type": "ct5lp-hightpu-4t", "tpu_topology": "2x2"}
    assert tpu_shape("2x4") != tpu_shape("2x2")


def test_multi_host_slice_shape_includes_its_placement() -> None:
    shape = tpu_shape("2x4", "ct5lp-hightpu-4t")
    assert shape == {
        "machine_type": "ct5lp-hightpu-4t",
        "tpu_topology": "2x4",
        "placement_topology": "2x4",
        "placement": "COMPACT",
    }


def test_gpu_pools_have_no_slice_shape() -> None:
    [plan] = plan_gpu_pool(GpuPoolSpec(name="l4", gpu="l4", gpus_per_node=1), region=REGION, cluster_zones=ZONES)
    assert plan.slice_shape() is None
