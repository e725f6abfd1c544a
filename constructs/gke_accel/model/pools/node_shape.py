"""What a node of a pool looks like to Kubernetes once GKE has created it.

One source of truth for everything that must match the nodes we deploy: workload templates and the
workload linter (selectors, tolerations, resources), Kueue ResourceFlavors, the fake nodes of the
end-to-end tier and ``verify``. Everything here is derived from the same :class:`NodePoolPlan`
that the node-pool constructs render, plus the labels and allocatable resources that GKE adds by
itself (catalog-facts: TPU/GPU node labels, Spot/queued labels; MIG and sharing multiply the
advertised ``nvidia.com/gpu``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.pools.allocatable import NodeAllocatable, machine_allocatable
from gke_accel.model.pools.node_pool import (
    GPU_RESOURCE,
    GPU_UNIT_LABEL,
    SPLIT_GPU_TAINT_KEY,
    TPU_RESOURCE,
    NodePoolPlan,
    Taint,
)

NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"
# the kubelet sets it on every node, to the node's hostname (Kubernetes "Well-Known Labels, Annotations and
# Taints"); the host level of Kueue's slice Topology (model/queues/topology.py)
HOSTNAME_LABEL = "kubernetes.io/hostname"
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
GPU_ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
GPU_PARTITION_LABEL = "cloud.google.com/gke-gpu-partition-size"
GPU_SHARING_LABEL = "cloud.google.com/gke-gpu-sharing-strategy"
GPU_MAX_CLIENTS_LABEL = "cloud.google.com/gke-max-shared-clients-per-gpu"
SPOT_LABEL = "cloud.google.com/gke-spot"
QUEUED_LABEL = "cloud.google.com/gke-queued"
FLEX_START_LABEL = "cloud.google.com/gke-flex-start"
RESERVATION_LABEL = "cloud.google.com/reservation-name"
# A pool behind a capacity-ladder rung (model/capacity): GKE's ComputeClass label (and taint) and
# gke-accel's rung label, which tells the rungs' nodes apart (one Kueue flavor per rung).
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
RUNG_LABEL = "gke-accel/capacity-rung"
# gke-accel's own labels, set by the pool's config (``pool_labels``): how the pool gets its nodes (every
# pool has one, so a selector can require it: on-demand nodes carry no GKE label that says so, and a
# selector can only require labels), and the pool's lifecycle role (model/lifecycle; read by review).
CAPACITY_LABEL = "gke-accel/capacity"
ROLE_LABEL = "gke-accel/role"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"

Effect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
_EFFECTS: dict[str, Effect] = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}
_MIG = re.compile(r"(\d)g\.(\d+)gb")


@dataclass(frozen=True)
class NodeTaint:
    """A taint as Kubernetes spells it (``NoSchedule``), not as the node-pool API does."""

    key: str
    value: str
    effect: Effect

    def toleration(self) -> dict[str, str]:
        return {"key": self.key, "operator": "Equal", "value": self.value, "effect": self.effect}

    def as_k8s(self) -> dict[str, str]:
        return {"key": self.key, "value": self.value, "effect": self.effect}


@dataclass(frozen=True)
class NodeShape:
    """Labels, taints and allocatable accelerator resources of every node of one pool."""

    pool: str
    kind: str  # tpu | gpu | system
    machine_type: str
    zones: tuple[str, ...]
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    taints: tuple[NodeTaint, ...] = ()
    resource: str | None = None  # google.com/tpu or nvidia.com/gpu
    allocatable: int = 0  # how many of ``resource`` one node advertises
    machine: NodeAllocatable | None = None  # cpu/memory/pods left for Pods; None: machine size unknown
    # labels inferred, not documented on a GKE page (tests/fixtures/gke-nodes/README.md marks them UNVERIFIED):
    # no selector requires them and ``verify`` does not fail a node for them
    inferred: frozenset[str] = frozenset()
    arch: str = "amd64"  # kubernetes.io/arch: the catalog's machine architecture (a4x: arm64)

    def documented_labels(self) -> dict[str, str]:
        """``labels`` without the inferred ones: what a real node of the pool must carry."""
        return {k: v for k, v in self.labels.items() if k not in self.inferred}

    def node_labels(self, zone: str) -> dict[str, str]:
        """Every label of a node of this pool in ``zone`` (adds the zone and region labels)."""
        return {**self.labels, ZONE_LABEL: zone, REGION_LABEL: zone.rsplit("-", 1)[0]}

    def selector(self) -> dict[str, str]:
        """The smallest nodeSelector that picks this pool's kind of accelerator (not the pool itself):
        TPU generation + topology, or GPU model (+ MIG partition size, + sharing strategy and clients);
        and how the nodes are obtained (Spot, queued provisioning, flex-start; a capacity ladder's class
        and rung), positively: gke-accel's ``CAPACITY_LABEL`` is on every pool, so an on-demand selector
        never matches flex-start, Spot, queued or reservation nodes of the same accelerator. A selector can
        only require labels, and a MIG or shared node carries the GPU model's label too: the taints keep
        whole-GPU pods off them (``SPLIT_GPU_TAINT_KEY``), gke-accel's ``GPU_UNIT_LABEL`` keeps split-GPU
        pods off whole GPUs. Inferred labels are never required."""
        keys = [
            CAPACITY_LABEL,
            GPU_UNIT_LABEL,
            TPU_ACCELERATOR_LABEL,
            TPU_TOPOLOGY_LABEL,
            GPU_ACCELERATOR_LABEL,
            GPU_PARTITION_LABEL,
            GPU_SHARING_LABEL,
            GPU_MAX_CLIENTS_LABEL,
            SPOT_LABEL,
            QUEUED_LABEL,
            FLEX_START_LABEL,
            COMPUTE_CLASS_LABEL,
            RUNG_LABEL,
        ]
        return {k: self.labels[k] for k in keys if k in self.labels and k not in self.inferred}

    def tolerations(self) -> list[dict[str, str]]:
        """Tolerations a pod needs to run on this pool's nodes."""
        return [t.toleration() for t in self.taints]

    @property
    def opt_in_taints(self) -> tuple[NodeTaint, ...]:
        """Taints a pod must tolerate by itself to be placed here: a Kueue flavor lists them as
        ``nodeTaints`` (admission checks the pod tolerates them) and never adds their tolerations, so
        only pods that ask for a split GPU get one (``SPLIT_GPU_TAINT_KEY``)."""
        return tuple(t for t in self.taints if t.key == SPLIT_GPU_TAINT_KEY)

    def extended_resources(self) -> dict[str, str]:
        return {} if self.resource is None else {self.resource: str(self.allocatable)}

    def node_allocatable(self) -> dict[str, str]:
        """``status.allocatable`` of a node: cpu, memory and pods where the machine size is known, and
        the accelerator resource."""
        base = {} if self.machine is None else self.machine.as_k8s()
        return {**base, **self.extended_resources()}


def mig_partitions(size: str, gpu_memory_gb: int) -> int:
    """MIG instances of ``size`` (e.g. ``1g.10gb``) one GPU holds: 7 compute slices and 8 memory
    slices per GPU, so ``min(7 // g, 8 // memory slices)``."""
    match = _MIG.fullmatch(size)
    if match is None:
        raise ValueError(f"not a MIG partition size: {size!r}")
    compute, memory = int(match.group(1)), int(match.group(2))
    slices = max(1, round(memory * 8 / gpu_memory_gb))
    return max(1, min(7 // compute, 8 // slices))


def _gpu_allocatable(plan: NodePoolPlan, catalog: Catalog) -> int:
    accel = plan.guest_accelerator
    if accel is None:
        return plan.chips_per_node
    per_gpu = 1
    if accel.partition_size:
        model = catalog.gpu_model(accel.type)
        per_gpu = mig_partitions(accel.partition_size, model.memory_gb if model else 80)
    if accel.sharing is not None:
        per_gpu *= accel.sharing.max_shared_clients
    return accel.count * per_gpu


def advertised_bounds(plan: NodePoolPlan, catalog: Catalog | None = None) -> tuple[int, int]:
    """The accelerator resource the pool's nodes advertise in total at its smallest and largest size:
    TPU chips, GPUs, MIG instances or shared GPU slots (what quotas and Kueue count), unlike
    ``NodePoolPlan.chip_bounds`` (physical chips, what Compute Engine quotas count)."""
    low, high = plan.node_bounds()
    per_node = node_shape(plan, catalog).allocatable if plan.kind != "system" else 0
    return low * per_node, high * per_node


def _taint(t: Taint) -> NodeTaint:
    return NodeTaint(t.key, t.value, _EFFECTS[t.effect])


def pool_labels(plan: NodePoolPlan) -> dict[str, str]:
    """The node labels the pool's config sets (``node_config.labels``, rendered by cdk/node_pool.py):
    the plan's own, how the pool gets its nodes (``CAPACITY_LABEL``) and its lifecycle role other than
    dev (``ROLE_LABEL``)."""
    labels = {**plan.labels, CAPACITY_LABEL: plan.consumption}
    life = plan.lifecycle
    if life is not None and life.role != "dev":
        labels[ROLE_LABEL] = life.role
    return labels


def node_shape(plan: NodePoolPlan, catalog: Catalog | None = None) -> NodeShape:
    """The nodes of ``plan`` as GKE creates them."""
    labels = {**pool_labels(plan), NODEPOOL_LABEL: plan.name, INSTANCE_TYPE_LABEL: plan.machine_type}
    inferred: set[str] = set()
    if plan.spot:
        labels[SPOT_LABEL] = "true"
    if plan.queued:
        labels[QUEUED_LABEL] = "true"
    if plan.flex_start:
        labels[FLEX_START_LABEL] = "true"
        if plan.queued:  # FLEX documents the label for flex-start pools; DWS does not say it for queued ones
            inferred.add(FLEX_START_LABEL)
    if plan.reservation is not None and plan.reservation.name:
        labels[RESERVATION_LABEL] = plan.reservation.name
        inferred.add(RESERVATION_LABEL)  # RES: UNVERIFIED that GKE labels a Standard pool's nodes with it
    resource: str | None = None
    allocatable = 0
    catalog = catalog or load_catalog()
    if plan.kind == "tpu":
        labels[TPU_ACCELERATOR_LABEL] = plan.accelerator
        if plan.tpu_topology:
            labels[TPU_TOPOLOGY_LABEL] = plan.tpu_topology
        resource, allocatable = TPU_RESOURCE, plan.chips_per_node
    elif plan.kind == "gpu":
        labels[GPU_ACCELERATOR_LABEL] = plan.accelerator
        accel = plan.guest_accelerator
        if accel is not None and accel.partition_size:
            labels[GPU_PARTITION_LABEL] = accel.partition_size
        if accel is not None and accel.sharing is not None:
            labels[GPU_SHARING_LABEL] = accel.sharing.strategy_label
            labels[GPU_MAX_CLIENTS_LABEL] = str(accel.sharing.max_shared_clients)
        resource, allocatable = GPU_RESOURCE, _gpu_allocatable(plan, catalog)
    return NodeShape(
        pool=plan.name,
        kind=plan.kind,
        machine_type=plan.machine_type,
        zones=plan.zones,
        labels=MappingProxyType(labels),
        taints=tuple(_taint(t) for t in (*plan.taints, *plan.gke_taints)),
        resource=resource,
        allocatable=allocatable,
        machine=machine_allocatable(plan.machine_type, catalog),
        inferred=frozenset(inferred),
        arch=_arch(plan.machine_type, catalog),
    )


def _arch(machine_type: str, catalog: Catalog) -> str:
    """The machine's CPU architecture as kubernetes.io/arch spells it: the catalog's GPU machine table
    says arm64 where it is (a4x); TPU hosts and general-purpose machines here are x86 (amd64)."""
    gpu = catalog.gpu_machines.get(machine_type)
    return gpu.arch if gpu is not None else "amd64"
