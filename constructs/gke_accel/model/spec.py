"""Config shapes: what a user writes in ``config/<env>.yaml`` and what constructs take as props.

Every class is a frozen dataclass; defaults are the documented, secure defaults. The parser in
``gke_accel.model.parse`` builds these from YAML and rejects unknown keys. Rules that involve the
catalog or several fields live in the ``*_rules`` / ``*_pool`` modules, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from gke_accel.model.observability_spec import BudgetSpec, MonitoringSpec
from gke_accel.model.platform_spec import PlatformSpec, TeamSpec

ConsumptionType = Literal["on-demand", "spot", "reservation", "queued", "flex-start"]
ReservationAffinity = Literal["specific", "any", "none"]
ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED"]
ImageType = Literal["COS_CONTAINERD", "UBUNTU_CONTAINERD"]
DriverMode = Literal["gke-managed", "daemonset"]
SharingStrategy = Literal["time-sharing", "mps"]
Placement = Literal["none", "compact"]
ExclusionScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]


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
    min_slices: int = 0
    max_slices: int = 1
    consumption: ConsumptionSpec = field(default_factory=ConsumptionSpec)
    disk_size_gb: int = 100
    labels: dict[str, str] = field(default_factory=dict)


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
    min_nodes: int | None = None
    max_nodes: int | None = None
    node_count: int | None = None
    consumption: ConsumptionSpec = field(default_factory=ConsumptionSpec)
    disk_size_gb: int = 200
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AuthorizedNetwork:
    cidr: str
    name: str


@dataclass(frozen=True)
class NetworkSpec:
    """The cluster's VPC. ``create: true`` builds a VPC, subnet with secondary ranges, router and
    Cloud NAT; ``create: false`` uses the named ``network``/``subnetwork`` and range names."""

    create: bool = True
    network: str | None = None
    subnetwork: str | None = None
    subnet_cidr: str = "10.10.0.0/20"
    pods_cidr: str = "10.16.0.0/14"
    services_cidr: str = "10.20.0.0/20"
    master_cidr: str = "172.16.0.0/28"
    pods_range_name: str = "pods"
    services_range_name: str = "services"


@dataclass(frozen=True)
class MaintenanceExclusion:
    name: str
    start_time: str
    end_time: str
    scope: ExclusionScope = "NO_MINOR_OR_NODE_UPGRADES"


@dataclass(frozen=True)
class MaintenanceSpec:
    """A recurring maintenance window (RFC 3339 times, RFC 5545 RRULE) plus exclusions."""

    start_time: str = "2025-01-04T03:00:00Z"
    end_time: str = "2025-01-04T11:00:00Z"
    recurrence: str = "FREQ=WEEKLY;BYDAY=SA,SU"
    exclusions: tuple[MaintenanceExclusion, ...] = ()


@dataclass(frozen=True)
class SystemPoolSpec:
    """The small pool for system pods, tainted so accelerator workloads never land on it."""

    machine_type: str = "e2-standard-4"
    min_nodes: int = 1
    max_nodes: int = 3
    disk_size_gb: int = 100


@dataclass(frozen=True)
class AutoProvisioningSpec:
    """Node auto-provisioning (NAP) limits; ``accelerators`` maps a GPU model or TPU generation
    to the most chips NAP may create."""

    enabled: bool = False
    max_cpu: int = 256
    max_memory_gb: int = 1024
    accelerators: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ClusterSpec:
    """A hardened GKE Standard cluster. ``location`` is a region (regional cluster) or a zone."""

    name: str
    location: str
    node_zones: tuple[str, ...] = ()
    release_channel: ReleaseChannel = "REGULAR"
    min_master_version: str | None = None
    deletion_protection: bool = True
    private_endpoint: bool = False
    master_authorized_networks: tuple[AuthorizedNetwork, ...] = ()
    rbac_security_group: str | None = None  # gke-security-groups@<domain>, for Google Groups in RBAC
    network: NetworkSpec = field(default_factory=NetworkSpec)
    maintenance: MaintenanceSpec = field(default_factory=MaintenanceSpec)
    system_pool: SystemPoolSpec = field(default_factory=SystemPoolSpec)
    auto_provisioning: AutoProvisioningSpec = field(default_factory=AutoProvisioningSpec)
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BackendSpec:
    """Where Terraform keeps state: ``local`` (dev) or ``gcs`` with ``bucket`` and ``prefix``."""

    type: Literal["local", "gcs"] = "local"
    bucket: str | None = None
    prefix: str | None = None


@dataclass(frozen=True)
class EnvironmentSpec:
    """One environment (one Terraform stack): ``config/<environment>.yaml``."""

    environment: str
    project_id: str
    region: str
    cluster: ClusterSpec
    backend: BackendSpec = field(default_factory=BackendSpec)
    labels: dict[str, str] = field(default_factory=dict)
    tpu_pools: tuple[TpuPoolSpec, ...] = ()
    gpu_pools: tuple[GpuPoolSpec, ...] = ()
    # In-cluster platform (teams, quotas, priority classes, checkpoints): model/platform_spec.py
    teams: tuple[TeamSpec, ...] = ()
    strict_capacity: bool = False  # team quotas above pool capacity: error instead of warning
    platform: PlatformSpec = field(default_factory=PlatformSpec)
    # Observability (alerts, dashboard, quota preferences, budget): model/observability_spec.py
    monitoring: MonitoringSpec = field(default_factory=MonitoringSpec)
    quota_preferences: bool = False
    budget: BudgetSpec | None = None
