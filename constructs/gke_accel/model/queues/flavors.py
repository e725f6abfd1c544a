"""Kueue ResourceFlavors derived from the environment's node-pool plans.

One flavor per kind of node a job can land on: TPU generation + topology, or GPU model + MIG partition
size + sharing strategy, and how the nodes are obtained (on-demand/reservation, Spot, queued
provisioning, flex-start). Its node labels, tolerations and name are read from ``node_shape`` (the one
source of GKE node facts: nothing here names a node label or a taint), and its capacity counts what the
nodes advertise (MIG instances, shared slots).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import (
    FLEX_START_LABEL,
    GPU_ACCELERATOR_LABEL,
    GPU_MAX_CLIENTS_LABEL,
    GPU_PARTITION_LABEL,
    GPU_SHARING_LABEL,
    QUEUED_LABEL,
    SPOT_LABEL,
    TPU_TOPOLOGY_LABEL,
    NodeShape,
    NodeTaint,
    advertised_bounds,
    node_shape,
)

# How the nodes are obtained, from the label GKE puts on them (absent: on-demand or a reservation).
_PROVISIONING = (
    (SPOT_LABEL, "spot"),
    (QUEUED_LABEL, "queued"),
    (FLEX_START_LABEL, "flex-start"),
)
_SHARING = {"time-sharing": "ts", "mps": "mps"}


@dataclass(frozen=True)
class Flavor:
    """One ResourceFlavor and the pools whose nodes it selects."""

    name: str
    resource: str  # google.com/tpu or nvidia.com/gpu
    accelerator: str  # GPU accelerator type or TPU node label value (as in the capacity table)
    node_labels: tuple[tuple[str, str], ...]  # node_shape's selector
    tolerations: tuple[NodeTaint, ...]  # the nodes' taints; Kueue adds them to the pods it admits
    pools: tuple[str, ...]
    chips_max: int  # what the pools' nodes advertise at their largest size (MIG instances, shared slots)
    provisioning: str  # on-demand, spot, queued or flex-start


def _provisioning(shape: NodeShape) -> str:
    return next((kind for label, kind in _PROVISIONING if shape.labels.get(label) == "true"), "on-demand")


def _short(pool: NodePoolPlan, shape: NodeShape) -> str:
    labels = shape.labels
    if pool.kind == "tpu":
        return f"{pool.tpu_generation or pool.accelerator}-{labels[TPU_TOPOLOGY_LABEL]}"
    name = labels[GPU_ACCELERATOR_LABEL].removeprefix("nvidia-")
    if GPU_PARTITION_LABEL in labels:
        name += f"-mig-{labels[GPU_PARTITION_LABEL].replace('.', '-')}"
    if GPU_SHARING_LABEL in labels:
        name += f"-{_SHARING[labels[GPU_SHARING_LABEL]]}{labels[GPU_MAX_CLIENTS_LABEL]}"
    return name


def flavor_name(pool: NodePoolPlan) -> str:
    shape = node_shape(pool)
    provisioning = _provisioning(shape)
    suffix = "" if provisioning == "on-demand" else f"-{provisioning}"
    return f"{_short(pool, shape)}{suffix}"


def plan_flavors(pools: Sequence[NodePoolPlan]) -> tuple[Flavor, ...]:
    """One flavor per distinct (labels, taints, provisioning) among the accelerator pools, sorted by
    name; pools of the same kind share a flavor."""
    groups: dict[str, list[NodePoolPlan]] = {}
    for pool in pools:
        if pool.kind != "system":
            groups.setdefault(flavor_name(pool), []).append(pool)
    flavors = []
    for name, members in sorted(groups.items()):
        first = members[0]
        member_shapes = [node_shape(p) for p in members]
        taints = sorted({t for s in member_shapes for t in s.taints}, key=lambda t: (t.key, t.value))
        flavors.append(
            Flavor(
                name=name,
                resource=first.resource,
                accelerator=first.accelerator,
                node_labels=tuple(sorted(member_shapes[0].selector().items())),
                tolerations=tuple(taints),
                pools=tuple(p.name for p in members),
                chips_max=sum(advertised_bounds(p)[1] for p in members),
                provisioning=_provisioning(member_shapes[0]),
            )
        )
    return tuple(flavors)


__all__ = ["Flavor", "flavor_name", "plan_flavors"]
