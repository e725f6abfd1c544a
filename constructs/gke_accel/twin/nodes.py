"""Fake GKE nodes for an environment: Node objects per pool, with the labels, taints, architecture and
allocatable resources that ``gke_accel.model.pools.node_shape`` says GKE gives the nodes of that
``NodePoolPlan`` (the system pool and CPU pools included) -- the same plan objects the node pools are
rendered from, so nothing here invents a GKE label. Memory is what a real kubelet reports: capacity below
the machine size by the kernel's share (catalog ``node_fit.kernel_memory_percent``) and allocatable
computed from that capacity (``allocatable.kernel_reduced``), so a pod sized to the last MiB of the
machine fails here first. Create them with ``LocalCluster.create_nodes``; kwok (``scheduling_cluster``)
then marks them Ready.
"""

from __future__ import annotations

from typing import Any

from gke_accel.catalog import load_catalog
from gke_accel.model import EnvironmentPlan
from gke_accel.model.pools.allocatable import kernel_reduced
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import node_shape

# cpu/memory of a fake node whose machine size the catalog does not list (ct4p TPU hosts): room for
# ordinary pods (not a GKE fact any test asserts on). Every other node takes node_shape's.
UNSIZED_ALLOCATABLE = {"cpu": "32", "memory": "128Gi", "pods": "110"}


def pool_node(pool: NodePoolPlan, index: int = 0) -> dict[str, Any]:
    """The Node object for the ``index``-th node of ``pool`` (zones taken in turn)."""
    shape = node_shape(pool)
    name = f"{pool.name}-{index}"
    zone = pool.zones[index % len(pool.zones)]
    labels = {
        **shape.node_labels(zone),
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": shape.arch,
    }
    if shape.machine is None:
        allocatable = {**UNSIZED_ALLOCATABLE, **shape.extended_resources()}
        capacity = dict(allocatable)
    else:
        capacity_mib, real = kernel_reduced(shape.machine)
        allocatable = {**real.as_k8s(), **shape.extended_resources()}
        size = load_catalog().machine_size(shape.machine_type)
        assert size is not None  # node_shape sized the machine from the same catalog
        capacity = {**allocatable, "cpu": str(size.vcpu), "memory": f"{capacity_mib}Mi"}  # cpu: the vCPU count
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": [t.as_k8s() for t in shape.taints]},
        "status": {"allocatable": allocatable, "capacity": capacity},
    }


def environment_nodes(plan: EnvironmentPlan, per_pool: int = 1) -> list[dict[str, Any]]:
    """``per_pool`` fake nodes for the system pool, every accelerator pool and every CPU pool of ``plan``."""
    pools = [plan.cluster.system_pool, *plan.pools, *plan.cpu_pools]
    return [pool_node(pool, i) for pool in pools for i in range(per_pool)]
