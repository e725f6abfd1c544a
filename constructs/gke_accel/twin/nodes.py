"""Fake GKE nodes for an environment: Node objects per pool, with the labels, taints and allocatable
resources that ``gke_accel.model.pools.node_shape`` says GKE gives the nodes of that ``NodePoolPlan``
-- the same plan objects the node pools are rendered from, so nothing here invents a GKE label.
Create them with ``LocalCluster.create_nodes``; kwok (``scheduling_cluster``) then marks them Ready.
"""

from __future__ import annotations

from typing import Any

from gke_accel.catalog import load_catalog
from gke_accel.model import EnvironmentPlan
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import node_shape

# cpu/memory of a fake node whose machine size the catalog does not list (the system pool): room for
# ordinary pods (not a GKE fact any test asserts on). Otherwise node_shape's GKE allocatable.
BASE_ALLOCATABLE = {"cpu": "32", "memory": "128Gi", "pods": "110"}


def pool_node(pool: NodePoolPlan, index: int = 0) -> dict[str, Any]:
    """The Node object for the ``index``-th node of ``pool`` (zones taken in turn)."""
    shape = node_shape(pool)
    name = f"{pool.name}-{index}"
    zone = pool.zones[index % len(pool.zones)]
    labels = {
        **shape.node_labels(zone),
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
    }
    allocatable = {**BASE_ALLOCATABLE, **shape.node_allocatable()}
    capacity = dict(allocatable)
    size = load_catalog().machine_size(shape.machine_type) if shape.machine_type else None
    if size is not None:  # GKE's capacity is the machine's size (tests/fixtures/gke-nodes/README.md, KCAP)
        capacity.update(cpu=str(size.vcpu), memory=f"{int(size.memory_gb * 1024 * 1024)}Ki")
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": [t.as_k8s() for t in shape.taints]},
        "status": {"allocatable": allocatable, "capacity": capacity},
    }


def environment_nodes(plan: EnvironmentPlan, per_pool: int = 1) -> list[dict[str, Any]]:
    """``per_pool`` fake nodes for the system pool and every accelerator pool of ``plan``."""
    pools = [plan.cluster.system_pool, *plan.pools]
    return [pool_node(pool, i) for pool in pools for i in range(per_pool)]
