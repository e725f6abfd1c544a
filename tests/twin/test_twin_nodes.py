"""The twin's nodes come from node_shape, system pool included (code review R12): no invented size or
architecture. Expected values by hand: e2-standard-4 is 4 vCPU / 16 GiB (Compute Engine general-purpose
family); GKE "Plan GKE Standard node sizes" reserves 60 + 10 + 2 x 5 = 80m of 4 cores -> 3920m; the kubelet's
capacity is the machine's memory less the catalog's kernel share (2%: ceil(327.68) = 328 MiB) = 16056 MiB
= 15.68 GiB, of which GKE reserves 25% of 4 + 20% of 4 + 10% of 7.68 GiB = 2.568 GiB = 2629.6 MiB, and 100
MiB eviction threshold: 13326 MiB allocatable. a4x-highgpu-4g is arm64 (catalog GPU machine table)."""

from __future__ import annotations

from gke_accel.model import load_environment_text
from gke_accel.twin.nodes import environment_nodes, pool_node
from helpers import base_config, to_yaml


def test_the_system_nodes_are_the_system_pools_machine() -> None:
    plan = load_environment_text(to_yaml(base_config()))
    assert plan.cluster.system_pool.machine_type == "e2-standard-4"
    [system] = [n for n in environment_nodes(plan) if n["metadata"]["name"].startswith("system-")]
    assert system["status"]["capacity"]["cpu"] == "4" and system["status"]["capacity"]["memory"] == "16056Mi"
    assert system["status"]["allocatable"]["cpu"] == "3920m"
    assert system["status"]["allocatable"]["memory"] == "13326Mi"
    assert [t["key"] for t in system["spec"]["taints"]] == ["components.gke.io/gke-managed-components"]


def test_the_architecture_comes_from_the_catalog() -> None:
    data = base_config()
    data["gpu_pools"] = [{"name": "gb200", "machine_type": "a4x-highgpu-4g", "zones": ["us-central1-a"],
                          "max_nodes": 1, "allow_unlisted_zone": True}]  # fmt: skip
    plan = load_environment_text(to_yaml(data))
    labels = pool_node(next(p for p in plan.pools if p.name == "gb200"))["metadata"]["labels"]
    assert labels["kubernetes.io/arch"] == "arm64"
    assert pool_node(plan.cluster.system_pool)["metadata"]["labels"]["kubernetes.io/arch"] == "amd64"
