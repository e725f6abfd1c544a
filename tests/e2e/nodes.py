"""Fake GKE nodes for an environment: one Node object per pool (or more), with the labels, taints and
allocatable resources that ``gke_accel.model.pools.node_shape`` says GKE gives the nodes of that
``NodePoolPlan`` -- the same plan objects the node pools are rendered from, so nothing here invents a
GKE label. Create them with ``LocalCluster.create_nodes``; kwok then marks them Ready.
"""

from __future__ import annotations

from typing import Any

from gke_accel.model import EnvironmentPlan

try:
    from gke_accel.model.pools.node_shape import node_shape  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # until the model provides it: node tests skip (see ``NODE_SHAPE_MISSING``)
    node_shape = None

NODE_SHAPE_MISSING = "gke_accel.model.pools.node_shape is not on this branch yet (merge main)"
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}
# Room for ordinary pods on a fake node when the shape names no cpu/memory (not a GKE fact; capacity only).
BASE_ALLOCATABLE = {"cpu": "32", "memory": "128Gi", "pods": "110"}


def pool_node(pool: Any, index: int = 0) -> dict[str, Any]:
    """The Node object for the ``index``-th node of ``pool`` (a NodePoolPlan)."""
    assert node_shape is not None, NODE_SHAPE_MISSING
    shape = node_shape(pool)
    name = f"{pool.name}-{index}"
    zone = pool.zones[index % len(pool.zones)] if pool.zones else None
    labels = {
        **dict(shape.labels),
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        **({"topology.kubernetes.io/zone": zone} if zone else {}),
    }
    allocatable = {**BASE_ALLOCATABLE, **{k: str(v) for k, v in dict(shape.allocatable).items()}}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": [tolerated(t) for t in shape.taints]},
        "status": {"allocatable": allocatable, "capacity": dict(allocatable)},
    }


def tolerated(taint: Any) -> dict[str, str]:
    """A model Taint in Kubernetes spelling (also usable as the matching toleration with operator Equal)."""
    return {"key": taint.key, "value": taint.value, "effect": EFFECTS.get(taint.effect, taint.effect)}


def environment_nodes(plan: EnvironmentPlan, per_pool: int = 1) -> list[dict[str, Any]]:
    """``per_pool`` fake nodes for the system pool and every accelerator pool of ``plan``."""
    pools = [plan.cluster.system_pool, *plan.pools]
    return [pool_node(pool, i) for pool in pools for i in range(per_pool)]
