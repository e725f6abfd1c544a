"""Config shapes of accelerator node pools: what a user writes under ``tpu_pools`` and ``gpu_pools``.

Frozen dataclasses with the documented defaults; ``gke_accel.model.core.parse`` builds them from YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from gke_accel.model.lifecycle.spec import PoolLifecycleSpec, PoolRole

Placement = Literal["none", "compact"]
SharingStrategy = Literal["time-sharing", "mps"]
DriverMode = Literal["gke-managed", "daemonset"]
ImageType = Literal["COS_CONTAINERD", "UBUNTU_CONTAINERD"]
ReservationAffinity = Literal["specific", "any", "none"]
ConsumptionType = Literal["on-demand", "spot", "reservation", "queued", "flex-start"]


@dataclass(frozen=True)
class ConsumptionSpec:
    """How a pool gets its VMs. A plain string (``spot``) is shorthand for ``{type: spot}``.

    - ``on-demand`` (default): regular VMs; consumes matching reservations the GKE default way.
    - ``spot``: Spot VMs (no reservations); the pool gets the ``cloud.google.com/gke-spot`` taint.
    - ``reservation``: consume a reservation; ``affinity`` is ``specific`` (needs ``reservation``),
      ``any`` or ``none``.
    - ``queued``: Dynamic Workload Scheduler queued provisioning (ProvisioningRequest API).
    - ``flex-start``: flex-start VMs (up to 7 days), auto-repair off.
    """

    shorthand_field: ClassVar[str] = "type"

    type: ConsumptionType = "on-demand"
    affinity: ReservationAffinity | None = None
    reservation: str | None = None
    max_run_duration_seconds: int | None = None


@dataclass(frozen=True)
class TpuPoolSpec:
    """A TPU slice pool: generation + topology, everything else derived from the catalog.

    Single-host slices (one VM) form one pool that autoscales between ``min_slices`` and
    ``max_slices`` nodes. Multi-host slices get one atomic node pool per slice (``max_slices``
    pools), each in one zone with COMPACT placement (a workload policy on tpu7x); the first
    ``min_slices`` pools keep their nodes, the others may scale to zero.
    """

    name: str
    generation: str
    topology: str
    machine_type: str | None = None
    zone: str | None = None
    min_slices: int = 0  # slices that keep their nodes
    max_slices: int = 1  # slices the pool may scale up to
    consumption: ConsumptionSpec = field(default_factory=ConsumptionSpec)
    disk_size_gb: int = 100
    labels: dict[str, str] = field(default_factory=dict)  # Kubernetes node labels
    allow_unlisted_zone: bool = False  # capacity in a zone the zone data does not list (docs/zones.md)
    # Upgrade/maintenance posture (docs/lifecycle.md): unset role = derived from the teams' priority classes
    role: PoolRole | None = None
    lifecycle: PoolLifecycleSpec = field(default_factory=PoolLifecycleSpec)


@dataclass(frozen=True)
class GpuSharingSpec:
    strategy: SharingStrategy
    max_clients: int


@dataclass(frozen=True)
class GpuPoolSpec:
    """An NVIDIA GPU pool: a GPU model and count per node, or an accelerator machine type.

    ``driver_mode: gke-managed`` lets GKE install ``driver_version`` (``latest`` needs COS);
    ``daemonset`` disables GKE's installer so the NVIDIA driver DaemonSet installs it.
    ``node_count`` makes the pool static; otherwise it autoscales between ``min_nodes`` and
    ``max_nodes`` (totals across zones).
    """

    name: str
    gpu: str | None = None
    gpus_per_node: int | None = None
    machine_type: str | None = None
    zones: tuple[str, ...] = ()
    image_type: ImageType = "COS_CONTAINERD"
    driver_mode: DriverMode = "gke-managed"
    driver_version: str = "default"  # default | latest (COS) | a pinned branch such as R570 (Ubuntu DaemonSet)
    partition_size: str | None = None
    sharing: GpuSharingSpec | None = None
    placement: Placement = "none"
    min_nodes: int | None = None  # autoscaling lower bound, total across zones; unset: 0
    max_nodes: int | None = None  # autoscaling upper bound, total across zones; unset: min_nodes, at least 1
    node_count: int | None = None  # a static pool of this many nodes (instead of min_nodes/max_nodes)
    consumption: ConsumptionSpec = field(default_factory=ConsumptionSpec)
    disk_size_gb: int = 200
    labels: dict[str, str] = field(default_factory=dict)  # Kubernetes node labels
    allow_unlisted_zone: bool = False  # capacity in a zone the zone data does not list (docs/zones.md)
    # Upgrade/maintenance posture (docs/lifecycle.md): unset role = derived from the teams' priority classes
    role: PoolRole | None = None
    lifecycle: PoolLifecycleSpec = field(default_factory=PoolLifecycleSpec)


CpuConsumption = Literal["on-demand", "spot"]


@dataclass(frozen=True)
class CpuPoolSpec:
    """A general-purpose pool for CPU-only pods (notebooks, data loaders, TensorBoard, Ray heads,
    gateways): untainted, so a pod that asks for no accelerator lands here and never on the system pool
    (tainted for GKE's and the platform's controllers) or an accelerator pool (tainted by its
    accelerator). Autoscales between ``min_nodes`` and ``max_nodes`` (totals across ``zones``, default
    the cluster's node zones). ``spot`` taints the pool ``cloud.google.com/gke-spot`` as Spot accelerator
    pools are, so only pods that tolerate it land there."""

    name: str = "cpu"
    machine_type: str | None = None  # default: the catalog's default CPU machine (e2-standard-8)
    zones: tuple[str, ...] = ()
    min_nodes: int = 0
    max_nodes: int = 4
    consumption: CpuConsumption = "on-demand"
    disk_size_gb: int = 100
    labels: dict[str, str] = field(default_factory=dict)  # Kubernetes node labels
