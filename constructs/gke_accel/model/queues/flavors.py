"""Kueue ResourceFlavors derived from the environment's node-pool plans.

One flavor per kind of node a job can land on: TPU generation + topology, or GPU model + MIG partition
size + sharing strategy, and how the nodes are obtained (on-demand/reservation, Spot, queued
provisioning, flex-start). Its node labels, tolerations and name are read from ``node_shape`` (the one
source of GKE node facts: nothing here names a node label or a taint), and its capacity counts what the
nodes advertise (MIG instances, shared slots). A split-GPU pool's taint is a ``nodeTaint`` of its flavor,
not a toleration: Kueue admits there only pods that tolerate it themselves (pods that asked for a slice),
and a flavor's ``accelerator`` is the pools' quota unit (``NodePoolPlan.unit``), so whole GPUs and MIG
instances are never counted in one number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import (
    CAPACITY_LABEL,
    RUNG_LABEL,
    NodeShape,
    NodeTaint,
    advertised_bounds,
    node_shape,
)
from gke_accel.model.pools.shape_name import shape_name, short_name
from gke_accel.model.queues.topology import TOPOLOGY_NAME, places_by_topology


@dataclass(frozen=True)
class Flavor:
    """One ResourceFlavor and the pools whose nodes it selects."""

    name: str
    resource: str  # google.com/tpu or nvidia.com/gpu
    accelerator: str  # the pools' quota unit (NodePoolPlan.unit, as in the capacity table)
    node_labels: tuple[tuple[str, str], ...]  # node_shape's selector
    tolerations: tuple[NodeTaint, ...]  # the nodes' taints; Kueue adds them to the pods it admits
    pools: tuple[str, ...]
    chips_max: int  # what the pools' nodes advertise at their largest size (MIG instances, shared slots)
    provisioning: str  # on-demand, reservation, spot, queued or flex-start
    node_taints: tuple[NodeTaint, ...] = ()  # the nodes' opt-in taints: Kueue admits only pods tolerating them
    rank: int | None = None  # position of its rung in a capacity ladder (model/capacity), if any
    max_run_seconds: int | None = None  # queued provisioning: the pools' max_run_duration_seconds
    topology: str | None = None  # the Kueue Topology its nodes are placed by (multi-host TPU slices)


def _provisioning(shape: NodeShape) -> str:
    """How the nodes are obtained: the pool's own ``CAPACITY_LABEL`` (every pool has one)."""
    return shape.labels[CAPACITY_LABEL]


def flavor_name(pool: NodePoolPlan) -> str:
    """A pool behind a capacity-ladder rung (model/capacity) gets one flavor per rung,
    ``<shape>-<rung>``, so that Kueue can try the rungs in the ladder's order."""
    shape = node_shape(pool)
    if RUNG_LABEL in pool.labels:
        return f"{short_name(pool, shape)}-{pool.labels[RUNG_LABEL]}"
    provisioning = _provisioning(shape)
    suffix = "" if provisioning == "on-demand" else f"-{provisioning}"
    return f"{short_name(pool, shape)}{suffix}"


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
        opt_in = {t for s in member_shapes for t in s.opt_in_taints}
        flavors.append(
            Flavor(
                name=name,
                resource=first.resource,
                accelerator=first.unit,
                node_labels=tuple(sorted(member_shapes[0].selector().items())),
                tolerations=tuple(t for t in taints if t not in opt_in),
                node_taints=tuple(t for t in taints if t in opt_in),
                pools=tuple(p.name for p in members),
                chips_max=sum(advertised_bounds(p)[1] for p in members),
                provisioning=_provisioning(member_shapes[0]),
                max_run_seconds=first.max_run_duration_seconds,
                topology=TOPOLOGY_NAME if places_by_topology(members) else None,
            )
        )
    return tuple(flavors)


__all__ = ["Flavor", "flavor_name", "plan_flavors", "shape_name"]
