"""What the model derives from a short pool spec: machine types, node counts, placement, bounds."""

from __future__ import annotations

import pytest

from gke_accel.catalog import load_catalog
from gke_accel.model import ConfigError, ConsumptionSpec, GpuPoolSpec, TpuPoolSpec, plan_gpu_pool, plan_tpu_pool

REGION = "us-central1"
ZONES = ("us-central1-a", "us-central1-b")


def tpu(**kw: object) -> list:  # type: ignore[type-arg]
    return plan_tpu_pool(TpuPoolSpec(**kw), region=REGION, cluster_zones=ZONES)  # type: ignore[arg-type]


def gpu(**kw: object) -> list:  # type: ignore[type-arg]
    return plan_gpu_pool(GpuPoolSpec(**kw), region=REGION, cluster_zones=ZONES)  # type: ignore[arg-type]


def test_single_host_v5e_slice_is_one_autoscaled_pool_without_placement() -> None:
    [pool] = tpu(name="p", generation="v5e", topology="2x2", min_slices=1, max_slices=3)
    assert (pool.machine_type, pool.chips_per_node, pool.accelerator) == ("ct5lp-hightpu-4t", 4, "tpu-v5-lite-podslice")
    assert pool.placement is None
    assert pool.zones == ("us-central1-a",)  # the only cluster zone offering v5e
    assert pool.autoscaling is not None and not pool.autoscaling.per_zone
    assert pool.node_bounds() == (1, 3) and pool.chip_bounds() == (4, 12)


def test_v5e_2x4_prefers_one_8_chip_vm_and_accepts_two_4_chip_vms() -> None:
    [single] = tpu(name="p", generation="v5e", topology="2x4")
    assert (single.machine_type, single.placement) == ("ct5lp-hightpu-8t", None)
    [multi] = tpu(name="p", generation="v5e", topology="2x4", machine_type="ct5lp-hightpu-4t", zone="us-central1-a")
    assert multi.placement is not None and multi.placement.compact and multi.placement.tpu_topology == "2x4"
    assert multi.node_bounds() == (0, 2)


def test_multi_host_slices_get_one_atomic_pool_each_with_per_zone_bounds() -> None:
    pools = tpu(name="train", generation="v5p", topology="2x2x4", zone="us-central1-a", min_slices=1, max_slices=3)
    assert [p.name for p in pools] == ["train-s0", "train-s1", "train-s2"]
    assert all(p.autoscaling and p.autoscaling.per_zone and p.autoscaling.max_nodes == 4 for p in pools)
    assert [p.autoscaling.min_nodes for p in pools if p.autoscaling] == [4, 0, 0]
    assert all(p.zones == ("us-central1-a",) and p.slice_name == "v5p-32" for p in pools)


def test_tpu7x_multi_host_uses_a_workload_policy_not_compact() -> None:
    [pool] = tpu(name="iw", generation="tpu7x", topology="2x2x2", zone="us-central1-c")
    assert pool.placement is not None
    assert (pool.placement.compact, pool.placement.workload_policy) == (False, True)


def test_large_3d_slice_counts_vms_not_hosts() -> None:
    [pool] = tpu(name="big", generation="v5p", topology="8x8x16", zone="us-central1-a")
    assert pool.node_bounds() == (0, 256) and pool.chip_bounds()[1] == 1024 and pool.slice_name == "v5p-2048"


def test_spot_pools_are_tainted_and_skip_reservations() -> None:
    [pool] = tpu(name="p", generation="v5e", topology="2x2", consumption=ConsumptionSpec(type="spot"))
    assert {t.key for t in pool.taints} == {"google.com/tpu", "cloud.google.com/gke-spot"}
    assert pool.spot and pool.reservation is not None and pool.reservation.consume == "NO_RESERVATION"


@pytest.mark.parametrize(
    ("gpu_name", "count", "machine"),
    [
        ("l4", 1, "g2-standard-12"),
        ("l4", 2, "g2-standard-24"),
        ("l4", 8, "g2-standard-96"),
        ("a100", 8, "a2-highgpu-8g"),
        ("a100-80gb", 4, "a2-ultragpu-4g"),
        ("h100", 8, "a3-highgpu-8g"),
        ("h100-mega", 8, "a3-megagpu-8g"),
        ("h200", 8, "a3-ultragpu-8g"),
        ("b200", 8, "a4-highgpu-8g"),
        ("t4", 1, "n1-standard-8"),
        ("t4", 4, "n1-standard-32"),
    ],
)
def test_gpu_model_and_count_pick_the_catalog_machine(gpu_name: str, count: int, machine: str) -> None:
    catalog = load_catalog()
    accelerator = catalog.gpu_model(gpu_name).accelerator_type  # type: ignore[union-attr]
    offered = [z for z in catalog.zones.zones_for("gpu", accelerator) if z.startswith(REGION + "-")]
    [pool] = gpu(name="g", gpu=gpu_name, gpus_per_node=count, zones=tuple(offered[:1]))
    assert pool.machine_type == machine
    assert pool.guest_accelerator is not None and pool.guest_accelerator.count == count
    assert load_catalog().gpu_model(gpu_name).accelerator_type == pool.accelerator  # type: ignore[union-attr]


def test_machine_type_alone_fixes_gpu_type_and_count() -> None:
    [pool] = gpu(name="g", machine_type="a3-highgpu-4g")
    assert (pool.accelerator, pool.chips_per_node) == ("nvidia-h100-80gb", 4)


def test_driver_modes_map_to_gke_driver_versions() -> None:
    [managed] = gpu(name="g", gpu="l4", driver_version="latest")
    [daemonset] = gpu(name="g", gpu="l4", driver_mode="daemonset", image_type="UBUNTU_CONTAINERD")
    assert managed.guest_accelerator and managed.guest_accelerator.driver_version == "LATEST"
    assert daemonset.guest_accelerator and daemonset.guest_accelerator.driver_version == "INSTALLATION_DISABLED"


def test_flex_start_turns_auto_repair_off_and_scales_anywhere() -> None:
    [pool] = gpu(name="g", gpu="h100", gpus_per_node=8, consumption=ConsumptionSpec(type="flex-start"))
    assert pool.flex_start and not pool.auto_repair
    assert pool.autoscaling is not None and pool.autoscaling.location_policy == "ANY"


def test_construct_level_errors_list_every_mistake_at_once() -> None:
    with pytest.raises(ConfigError) as info:
        gpu(name="Bad_Name", gpu="l4", gpus_per_node=3, partition_size="1g.5gb")
    paths = {i.path for i in info.value.issues}
    assert {"gpu_pool.name", "gpu_pool.gpus_per_node"} <= paths


def test_tpu_error_names_field_value_and_valid_options() -> None:
    with pytest.raises(ConfigError) as info:
        tpu(name="p", generation="v5e", topology="3x3")
    assert str(info.value).endswith(
        "tpu_pool.topology: '3x3' is not valid for v5e; valid: 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16"
    )
