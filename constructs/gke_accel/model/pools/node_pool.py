"""The derived, validated shape of one GKE node pool: what a construct renders, what cost,
capacity and review read. Produced by ``tpu_pool.plan_tpu_pool`` and ``gpu_pool.plan_gpu_pool``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gke_accel.model.lifecycle.plan import PoolLifecyclePlan

PoolKind = Literal["tpu", "gpu", "cpu", "system"]

SPOT_TAINT_KEY = "cloud.google.com/gke-spot"
# gke-accel's taint on pools of MIG-partitioned or shared GPUs: GKE labels those nodes with the GPU model
# too, so a whole-GPU pod (and a Kueue flavor's nodeLabels, which can only require labels) would
# otherwise land on a slice of a GPU. Only pods that tolerate it themselves run there: their Kueue flavor
# lists it as a ``nodeTaint`` (checked at admission), never as a toleration Kueue would add.
SPLIT_GPU_TAINT_KEY = "gke-accel/split-gpu"
# gke-accel's label on every GPU pool: what one nvidia.com/gpu of its nodes is (``whole``, ``mig-1g-10gb``,
# ``ts4``, ``mps2``, ``mig-1g-10gb-ts2``), the unit a team's quota counts. Every GPU flavor's nodeLabels hold
# it, so Kueue never admits a pod that selects one unit on a flavor of another (Kueue v0.19 matches a pod's
# nodeSelector against the keys of each flavor's own nodeLabels).
GPU_UNIT_LABEL = "gke-accel/gpu-unit"
WHOLE_GPU = "whole"
# GKE taints every node of a queued-provisioning (Dynamic Workload Scheduler) pool itself; the pool
# config does not carry it (tests/fixtures/gke-nodes/README.md, source DWS).
QUEUED_TAINT_KEY = "cloud.google.com/gke-queued"
SYSTEM_TAINT_KEY = "components.gke.io/gke-managed-components"
GPU_RESOURCE = "nvidia.com/gpu"
TPU_RESOURCE = "google.com/tpu"
LABEL_PREFIX = "gke-accel"
POOL_LABEL = f"{LABEL_PREFIX}/pool"  # our own label: the pool's name as configured (a slice pool's config name)
DRIVER_VARIANT_LABEL = f"{LABEL_PREFIX}/driver-variant"


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: Literal["NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"] = "NO_SCHEDULE"


@dataclass(frozen=True)
class Autoscaling:
    """Node bounds. ``per_zone`` bounds apply in each zone (multi-host TPU pools must use them);
    otherwise they are totals across the pool's zones."""

    min_nodes: int
    max_nodes: int
    per_zone: bool
    location_policy: Literal["BALANCED", "ANY"]


@dataclass(frozen=True)
class Reservation:
    consume: Literal["NO_RESERVATION", "ANY_RESERVATION", "SPECIFIC_RESERVATION"]
    name: str | None = None


@dataclass(frozen=True)
class Placement:
    """COMPACT placement, or (tpu7x) a workload policy; ``tpu_topology`` for multi-host slices."""

    compact: bool
    tpu_topology: str | None = None
    workload_policy: bool = False


@dataclass(frozen=True)
class GpuSharing:
    strategy: Literal["TIME_SHARING", "MPS"]
    max_shared_clients: int

    @property
    def strategy_label(self) -> str:
        """The strategy as GKE's node label spells it: ``time-sharing``, ``mps``."""
        return self.strategy.lower().replace("_", "-")


_SHARING_SHORT = {"TIME_SHARING": "ts", "MPS": "mps"}


def gpu_split(partition_size: str | None, sharing: GpuSharing | None) -> str:
    """How a pool divides its GPUs, as the unit of its ``nvidia.com/gpu`` is named (``mig-1g-10gb``,
    ``ts4``, ``mps2``, ``mig-1g-10gb-ts2``); empty for whole GPUs."""
    parts = [f"mig-{partition_size.replace('.', '-')}" if partition_size else ""]
    parts.append(f"{_SHARING_SHORT[sharing.strategy]}{sharing.max_shared_clients}" if sharing else "")
    return "-".join(p for p in parts if p)


@dataclass(frozen=True)
class GuestAccelerator:
    type: str
    count: int
    driver_version: Literal["DEFAULT", "LATEST", "INSTALLATION_DISABLED"]
    partition_size: str | None = None
    sharing: GpuSharing | None = None

    @property
    def split(self) -> str:
        return gpu_split(self.partition_size, self.sharing)


@dataclass(frozen=True)
class NodePoolPlan:
    name: str
    kind: PoolKind
    machine_type: str
    accelerator: str  # GPU accelerator type or TPU node label value
    chips_per_node: int  # GPUs or TPU chips on each node
    zones: tuple[str, ...]
    autoscaling: Autoscaling | None
    node_count: int | None  # static size per zone, when not autoscaled
    initial_node_count: int | None
    spot: bool
    flex_start: bool
    queued: bool
    reservation: Reservation | None
    auto_repair: bool
    max_run_duration_seconds: int | None
    placement: Placement | None
    guest_accelerator: GuestAccelerator | None
    image_type: str
    disk_size_gb: int
    disk_type: str = "pd-balanced"  # boot disk; also GKE's default for pools that do not set it
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    tpu_topology: str | None = None
    tpu_generation: str | None = None
    slice_name: str | None = None
    slice_index: int | None = None
    driver_mode: Literal["gke-managed", "daemonset"] | None = None
    lifecycle: PoolLifecyclePlan | None = None  # upgrades/maintenance by role: model/lifecycle/posture.py

    @property
    def consumption(self) -> Literal["spot", "flex-start", "queued", "reservation", "on-demand"]:
        """How the pool gets its VMs, as configured."""
        if self.spot:
            return "spot"
        if self.queued:  # before flex-start: a queued pool is created with --flex-start too (consumption.py)
            return "queued"
        if self.flex_start:
            return "flex-start"
        if self.reservation is not None and self.reservation.consume != "NO_RESERVATION":
            return "reservation"
        return "on-demand"

    @property
    def gke_taints(self) -> tuple[Taint, ...]:
        """Taints GKE puts on the nodes by itself (not rendered into the node pool's config)."""
        return (Taint(QUEUED_TAINT_KEY, "true"),) if self.queued else ()

    @property
    def resource(self) -> str:
        return TPU_RESOURCE if self.kind == "tpu" else GPU_RESOURCE

    @property
    def unit(self) -> str:
        """What one advertised ``resource`` of its nodes is, as team quotas and Kueue flavors count it:
        the accelerator (``nvidia-l4``, ``tpu-v5-lite-podslice``) for whole GPUs and TPU chips; the GPU
        and its split for MIG instances and shared slots (``nvidia-a100-80gb/mig-1g-10gb``, ``nvidia-tesla-t4/ts4``)."""
        split = self.guest_accelerator.split if self.guest_accelerator is not None else ""
        return f"{self.accelerator}/{split}" if split else self.accelerator

    def node_bounds(self) -> tuple[int, int]:
        """Smallest and largest number of nodes the pool can have in total."""
        zones = max(1, len(self.zones))
        if self.autoscaling is None:
            count = (self.node_count or 0) * zones
            return count, count
        factor = zones if self.autoscaling.per_zone else 1
        return self.autoscaling.min_nodes * factor, self.autoscaling.max_nodes * factor

    def chip_bounds(self) -> tuple[int, int]:
        """Accelerator chips (TPU) or GPUs at the pool's smallest and largest size."""
        low, high = self.node_bounds()
        return low * self.chips_per_node, high * self.chips_per_node

    def slice_shape(self) -> dict[str, str] | None:
        """What a TPU slice pool cannot change in place (None for other pools): its machine type
        (chips per VM) and topology. Provider 6.50 plans such a change as an in-place update that
        GKE does not apply, so the slice would keep its old shape; the construct turns a change of
        this value into a replacement of the pool (same name: an unchanged pool keeps its name)."""
        if self.kind != "tpu":
            return None
        shape = {"machine_type": self.machine_type, "tpu_topology": self.tpu_topology or ""}
        if self.placement is not None:
            shape["placement_topology"] = self.placement.tpu_topology or ""
            shape["placement"] = "COMPACT" if self.placement.compact else "workload-policy"
        return shape
