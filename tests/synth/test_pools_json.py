"""TPU and GPU node pools as synthesized Terraform JSON."""

from __future__ import annotations

from typing import Any

from helpers import base_config, one, resources, set_path

POOL = "google_container_node_pool"


def taints(pool: dict[str, Any]) -> set[str]:
    return {f"{t['key']}={t['value']}:{t['effect']}" for t in pool["node_config"]["taint"]}


def test_dev_single_host_v5e_spot_pool(shipped: dict[str, Any]) -> None:
    pool = one(shipped["dev"], POOL, name="v5e-dev")
    assert pool["node_config"]["machine_type"] == "ct5lp-hightpu-4t"
    assert pool["node_config"]["spot"] is True
    assert pool["node_locations"] == ["us-central1-a"]
    assert pool["autoscaling"] == {"location_policy": "ANY", "total_max_node_count": 2, "total_min_node_count": 0}
    assert "placement_policy" not in pool
    assert taints(pool) == {"google.com/tpu=present:NO_SCHEDULE", "cloud.google.com/gke-spot=true:NO_SCHEDULE"}
    assert pool["node_config"]["reservation_affinity"]["consume_reservation_type"] == "NO_RESERVATION"
    assert pool["node_config"]["labels"]["gke-accel/tpu-topology"] == "2x2"


def test_staging_multi_host_slice_is_compact_zonal_and_sized_in_whole_slices(shipped: dict[str, Any]) -> None:
    pool = one(shipped["staging"], POOL, name="v5e-slice")
    assert pool["placement_policy"] == {"tpu_topology": "2x4", "type": "COMPACT"}
    assert pool["node_locations"] == ["us-central1-a"]
    # min_slices: 1 in config/staging.yaml: the slice keeps its 2 VMs (Kueue's Topology places on nodes that exist)
    assert pool["autoscaling"] == {"location_policy": "ANY", "max_node_count": 2, "min_node_count": 2}
    assert pool["initial_node_count"] == 2


def test_prod_v5p_slice_keeps_its_two_vms(shipped: dict[str, Any]) -> None:
    pool = one(shipped["prod"], POOL, name="v5p-train")
    assert pool["node_config"]["machine_type"] == "ct5p-hightpu-4t"
    assert pool["autoscaling"]["min_node_count"] == pool["autoscaling"]["max_node_count"] == 2
    assert pool["placement_policy"]["tpu_topology"] == "2x2x2"


def test_prod_gpu_pools(shipped: dict[str, Any]) -> None:
    h100 = one(shipped["prod"], POOL, name="h100-train")
    assert h100["node_config"]["machine_type"] == "a3-highgpu-8g"
    [accel] = h100["node_config"]["guest_accelerator"]
    assert (accel["type"], accel["count"]) == ("nvidia-h100-80gb", 8)
    assert accel["gpu_driver_installation_config"]["gpu_driver_version"] == "DEFAULT"
    assert h100["placement_policy"] == {"type": "COMPACT"} and h100["node_locations"] == ["us-central1-a"]
    assert "nvidia.com/gpu=present:NO_SCHEDULE" in taints(h100)
    t4 = one(shipped["prod"], POOL, name="t4-serve")
    assert t4["node_config"]["machine_type"] == "n1-standard-8"
    assert t4["node_config"]["guest_accelerator"][0]["type"] == "nvidia-tesla-t4"
    assert "spot" not in t4["node_config"]
    assert t4["autoscaling"]["location_policy"] == "BALANCED"


def test_multislice_pools_and_tpu7x_workload_policy(synth: Any) -> None:
    data = set_path(
        base_config(),
        "tpu_pools",
        [{"name": "iw", "generation": "tpu7x", "topology": "2x2x2", "zone": "us-central1-c", "max_slices": 2}],
    )
    doc = synth(data)
    pools = [p for p in resources(doc, POOL) if p["name"].startswith("iw")]
    assert sorted(p["name"] for p in pools) == ["iw-s0", "iw-s1"]
    policies = resources(doc, "google_compute_resource_policy")
    assert {p["name"] for p in policies} == {"iw-s0-wp", "iw-s1-wp"}
    assert all(p["workload_policy"] == {"accelerator_topology": "2x2x2", "type": "HIGH_THROUGHPUT"} for p in policies)
    for pool in pools:
        assert pool["placement_policy"]["type"] == ""
        assert "google_compute_resource_policy" in pool["placement_policy"]["policy_name"]


def test_specific_reservation_queued_and_flex_start_pools(synth: Any) -> None:
    data = set_path(
        base_config(),
        "gpu_pools",
        [
            {
                "name": "res",
                "gpu": "h100",
                "gpus_per_node": 8,
                "consumption": {"type": "reservation", "reservation": "h100-res"},
            },
            {"name": "queued", "gpu": "a100", "gpus_per_node": 8, "consumption": "queued"},
            {"name": "flex", "gpu": "l4", "consumption": {"type": "flex-start", "max_run_duration_seconds": 86400}},
        ],
    )
    data["queues"] = {}  # queued and flex-start pools are used through Kueue
    doc = synth(data)
    res = one(doc, POOL, name="res")["node_config"]["reservation_affinity"]
    assert res == {
        "consume_reservation_type": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["h100-res"],
    }
    queued = one(doc, POOL, name="queued")
    assert queued["queued_provisioning"] == {"enabled": True}
    assert queued["management"]["auto_repair"] is False and queued["autoscaling"]["total_min_node_count"] == 0
    flex = one(doc, POOL, name="flex")
    assert flex["node_config"]["flex_start"] is True and flex["node_config"]["max_run_duration"] == "86400s"
    assert flex["management"]["auto_repair"] is False
    assert flex["//"]["checkov_skip"]["CKV_GCP_9"]


def test_mig_sharing_and_daemonset_driver_mode(synth: Any) -> None:
    data = set_path(
        base_config(),
        "gpu_pools",
        [
            {
                "name": "mig",
                "gpu": "a100",
                "partition_size": "1g.5gb",
                "sharing": {"strategy": "time-sharing", "max_clients": 2},
            },
            {"name": "ds", "gpu": "l4", "driver_mode": "daemonset", "image_type": "UBUNTU_CONTAINERD"},
        ],
    )
    doc = synth(data)
    [mig] = one(doc, POOL, name="mig")["node_config"]["guest_accelerator"]
    assert mig["gpu_partition_size"] == "1g.5gb"
    assert mig["gpu_sharing_config"] == {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 2}
    ds = one(doc, POOL, name="ds")
    assert ds["node_config"]["guest_accelerator"][0]["gpu_driver_installation_config"] == {
        "gpu_driver_version": "INSTALLATION_DISABLED"
    }
    assert ds["node_config"]["image_type"] == "UBUNTU_CONTAINERD"
