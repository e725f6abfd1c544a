"""Pods schedule against fake nodes shaped like the dev environment's pools (kube-scheduler + kwok)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import load_environment
from gke_accel.model.pools.node_shape import node_shape
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.nodes import environment_nodes

CONFIG = Path(__file__).resolve().parents[2] / "config"


@pytest.fixture(scope="module")
def dev_nodes(scheduling_cluster: LocalCluster) -> Any:
    plan = load_environment(CONFIG / "dev.yaml")
    nodes = environment_nodes(plan)
    scheduling_cluster.create_nodes(nodes)
    names = [n["metadata"]["name"] for n in nodes]

    def all_ready() -> bool:
        for name in names:
            conditions = scheduling_cluster.get("node", name).get("status", {}).get("conditions", [])
            if not any(c["type"] == "Ready" and c["status"] == "True" for c in conditions):
                return False
        return True

    scheduling_cluster.wait_for(all_ready, timeout=60, what=f"kwok to mark {names} Ready")
    return plan


def tpu_pod(namespace: str, name: str, resource: str, pool: Any) -> dict[str, Any]:
    shape = node_shape(pool)
    selector = {
        k: shape.labels[k] for k in ("cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-tpu-topology")
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "nodeSelector": selector,
            "tolerations": shape.tolerations(),
            "containers": [
                {"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": {"limits": {resource: "4"}}}
            ],
        },
    }


def test_four_chip_pod_runs_on_a_v5e_node_and_the_seeds_resource_name_stays_pending(
    scheduling_cluster: LocalCluster, dev_nodes: Any, namespace: str
) -> None:
    [v5e] = [p for p in dev_nodes.pools if p.kind == "tpu"]
    c = scheduling_cluster
    c.create(
        [tpu_pod(namespace, "right", "google.com/tpu", v5e), tpu_pod(namespace, "seed", "cloud.google.com/tpu", v5e)]
    )

    def running() -> dict[str, Any] | None:
        pod = c.get("pod", "right", namespace)
        return pod if pod["status"].get("phase") == "Running" else None

    pod = c.wait_for(running, timeout=60, what="the 4-chip pod to run")
    assert pod["spec"]["nodeName"].startswith(f"{v5e.name}-")

    def unschedulable() -> str:
        conditions = c.get("pod", "seed", namespace)["status"].get("conditions", [])
        return next((x.get("message", "") for x in conditions if x.get("reason") == "Unschedulable"), "")

    message = c.wait_for(unschedulable, timeout=60, what="the scheduler to report the seed pod unschedulable")
    assert "Insufficient cloud.google.com/tpu" in message
    assert c.get("pod", "seed", namespace)["status"]["phase"] == "Pending"


def test_tpu_pod_without_the_spot_toleration_does_not_land_on_the_spot_pool(
    scheduling_cluster: LocalCluster, dev_nodes: Any, namespace: str
) -> None:
    [v5e] = [p for p in dev_nodes.pools if p.kind == "tpu"]
    assert v5e.spot  # dev's v5e pool is Spot: GKE labels its nodes, gke-accel taints them (tpu_pool.py)
    pod = tpu_pod(namespace, "no-spot", "google.com/tpu", v5e)
    pod["spec"]["tolerations"] = [t for t in pod["spec"]["tolerations"] if t["key"] != "cloud.google.com/gke-spot"]
    scheduling_cluster.create([pod])

    def message() -> str:
        conditions = scheduling_cluster.get("pod", "no-spot", namespace)["status"].get("conditions", [])
        return next((x.get("message", "") for x in conditions if x.get("reason") == "Unschedulable"), "")

    assert "untolerated taint" in scheduling_cluster.wait_for(message, timeout=60, what="an untolerated-taint report")
