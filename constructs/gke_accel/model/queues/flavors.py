"""Kueue ResourceFlavors derived from the environment's node-pool plans.

One flavor per kind of node a job can land on: TPU generation + topology, or GPU model + MIG partition
size + sharing strategy, and how the nodes are obtained (on-demand/reservation, Spot, queued
provisioning, flex-start). Its node labels and tolerations are ``node_shape``'s (the one source of
GKE node facts), and its capacity counts what the nodes advertise (MIG instances, shared slots).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_accel.model.pools.node_pool import SPOT_TAINT_KEY, NodePoolPlan
from gke_accel.model.pools.node_shape import RUNG_LABEL, NodeShape, NodeTaint, advertised_bounds, node_shape

Toleration = NodeTaint  # a flavor tolerates its nodes' taints; Kueue adds them to the pods it admits


@dataclass(frozen=True)
class Flavor:
    """One ResourceFlavor and the pools whose nodes it selects."""

    name: str
    resource: str  # google.com/tpu or nvidia.com/gpu
    accelerator: str  # GPU accelerator type or TPU node label value (as in the capacity table)
    node_labels: tuple[tuple[str, str], ...]
    tolerations: tuple[Toleration, ...]
    pools: tuple[str, ...]
    chips_max: int  # what the pools' nodes advertise at their largest size (MIG instances, shared slots)
    provisioning: str  # on-demand, spot, queued or flex-start
    rank: int | None = None  # position of its rung in a capacity ladder (model/capacity), if any
    max_run_seconds: int | None = None  # queued provisioning: the pools' max_run_duration_seconds

    @property
    def needs_provisioning_request(self) -> bool:
        """Only queued provisioning goes through a ProvisioningRequest; flex-start VMs without it are
        created by the cluster autoscaler for pending pods (GKE documents both modes)."""
        return self.provisioning == "queued"


def node_labels(pool: NodePoolPlan) -> dict[str, str]:
    """The GKE node labels that identify a pool's kind of node: ``node_shape``'s selector."""
    return node_shape(pool).selector()


def _provisioning(pool: NodePoolPlan) -> str:
    if pool.spot:
        return "spot"
    if pool.queued:
        return "queued"
    if pool.flex_start:
        return "flex-start"
    return "on-demand"


def _short(pool: NodePoolPlan, shape: NodeShape) -> str:
    if pool.kind == "tpu":
        return f"{pool.tpu_generation or pool.accelerator}-{pool.tpu_topology}"
    name = pool.accelerator.removeprefix("nvidia-")
    accel = pool.guest_accelerator
    if accel is not None and accel.partition_size:
        name += f"-mig-{accel.partition_size.replace('.', '-')}"
    if accel is not None and accel.sharing is not None:
        strategy = "ts" if accel.sharing.strategy == "TIME_SHARING" else "mps"
        name += f"-{strategy}{accel.sharing.max_shared_clients}"
    return name


def shape_name(pool: NodePoolPlan) -> str:
    """The accelerator shape of a pool as flavors and capacity ladders name it (``v5e-2x4``, ``l4``)."""
    return _short(pool, node_shape(pool))


def flavor_name(pool: NodePoolPlan) -> str:
    """A pool behind a capacity-ladder rung (model/capacity) gets one flavor per rung,
    ``<shape>-<rung>``, so that Kueue can try the rungs in the ladder's order."""
    if RUNG_LABEL in pool.labels:
        return f"{_short(pool, node_shape(pool))}-{pool.labels[RUNG_LABEL]}"
    provisioning = _provisioning(pool)
    suffix = "" if provisioning == "on-demand" else f"-{provisioning}"
    return f"{_short(pool, node_shape(pool))}{suffix}"


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
        shapes = [node_shape(p) for p in members]
        taints = sorted({t for s in shapes for t in s.taints}, key=lambda t: (t.key, t.value))
        flavors.append(
            Flavor(
                name=name,
                resource=first.resource,
                accelerator=first.accelerator,
                node_labels=tuple(sorted(shapes[0].selector().items())),
                tolerations=tuple(taints),
                pools=tuple(p.name for p in members),
                chips_max=sum(advertised_bounds(p)[1] for p in members),
                provisioning=_provisioning(first),
                max_run_seconds=first.max_run_duration_seconds,
            )
        )
    return tuple(flavors)


__all__ = ["SPOT_TAINT_KEY", "Flavor", "Toleration", "flavor_name", "node_labels", "plan_flavors", "shape_name"]
