"""Kueue ResourceFlavors derived from the environment's node-pool plans.

One flavor per kind of node a job can land on: TPU generation + topology, or GPU model, and how the
nodes are obtained (on-demand/reservation, Spot, or through queued provisioning). Its node labels
and tolerations come from the same ``NodePoolPlan`` objects the pools are rendered from, so a flavor
that matches no pool, or a pool no flavor covers, cannot be produced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_accel.model.pools.node_pool import SPOT_TAINT_KEY, NodePoolPlan, Taint

TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
GPU_ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
SPOT_LABEL = "cloud.google.com/gke-spot"
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}


@dataclass(frozen=True)
class Toleration:
    key: str
    value: str
    effect: str  # Kubernetes spelling: NoSchedule, PreferNoSchedule, NoExecute


@dataclass(frozen=True)
class Flavor:
    """One ResourceFlavor and the pools whose nodes it selects."""

    name: str
    resource: str  # google.com/tpu or nvidia.com/gpu
    accelerator: str  # GPU accelerator type or TPU node label value (as in the capacity table)
    node_labels: tuple[tuple[str, str], ...]
    tolerations: tuple[Toleration, ...]
    pools: tuple[str, ...]
    chips_max: int  # the pools' chips or GPUs at their largest size
    provisioning: str  # on-demand, spot, queued or flex-start (queued and flex-start need an admission check)

    @property
    def needs_provisioning_request(self) -> bool:
        return self.provisioning in ("queued", "flex-start")


def node_labels(pool: NodePoolPlan) -> dict[str, str]:
    """The GKE node labels that identify a pool's kind of node (set by GKE on every node)."""
    if pool.kind == "tpu":
        labels = {TPU_ACCELERATOR_LABEL: pool.accelerator}
        if pool.tpu_topology:
            labels[TPU_TOPOLOGY_LABEL] = pool.tpu_topology
    else:
        labels = {GPU_ACCELERATOR_LABEL: pool.accelerator}
    if pool.spot:
        labels[SPOT_LABEL] = "true"
    return labels


def tolerations(taints: Sequence[Taint]) -> tuple[Toleration, ...]:
    return tuple(Toleration(t.key, t.value, EFFECTS[t.effect]) for t in taints)


def _provisioning(pool: NodePoolPlan) -> str:
    if pool.spot:
        return "spot"
    if pool.queued:
        return "queued"
    if pool.flex_start:
        return "flex-start"
    return "on-demand"


def _short(pool: NodePoolPlan) -> str:
    if pool.kind == "tpu":
        return f"{pool.tpu_generation or pool.accelerator}-{pool.tpu_topology}"
    return pool.accelerator.removeprefix("nvidia-")


def flavor_name(pool: NodePoolPlan) -> str:
    provisioning = _provisioning(pool)
    suffix = "" if provisioning == "on-demand" else f"-{provisioning}"
    return f"{_short(pool)}{suffix}"


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
        taints = sorted({t for p in members for t in p.taints}, key=lambda t: (t.key, t.value))
        flavors.append(
            Flavor(
                name=name,
                resource=first.resource,
                accelerator=first.accelerator,
                node_labels=tuple(sorted(node_labels(first).items())),
                tolerations=tolerations(taints),
                pools=tuple(p.name for p in members),
                chips_max=sum(p.chip_bounds()[1] for p in members),
                provisioning=_provisioning(first),
            )
        )
    return tuple(flavors)


__all__ = ["SPOT_TAINT_KEY", "Flavor", "Toleration", "flavor_name", "node_labels", "plan_flavors", "tolerations"]
