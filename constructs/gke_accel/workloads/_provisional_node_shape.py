"""PROVISIONAL until ``gke_accel.model.pools.node_shape`` lands on main: the labels GKE puts on the
nodes of a NodePoolPlan. Deleted when the model's version is merged (one source of truth)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gke_accel.model.node_pool import NodePoolPlan, Taint


@dataclass(frozen=True)
class NodeShape:
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    allocatable: dict[str, int] = field(default_factory=dict)


def node_shape(pool: NodePoolPlan) -> NodeShape:
    labels = {
        "cloud.google.com/gke-nodepool": pool.name,
        "cloud.google.com/machine-family": pool.machine_type.split("-")[0],
    }
    labels["node.kubernetes.io/instance-type"] = pool.machine_type
    if pool.kind == "tpu":
        labels["cloud.google.com/gke-tpu-accelerator"] = pool.accelerator
        labels["cloud.google.com/gke-tpu-topology"] = pool.tpu_topology or ""
    elif pool.kind == "gpu":
        labels["cloud.google.com/gke-accelerator"] = pool.accelerator
    if pool.spot:
        labels["cloud.google.com/gke-spot"] = "true"
    labels.update(pool.labels)
    allocatable = {pool.resource: pool.chips_per_node} if pool.kind != "system" else {}
    return NodeShape(labels, pool.taints, allocatable)
