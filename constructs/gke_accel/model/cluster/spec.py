"""Config shapes of the cluster: network, maintenance, system pool, node auto-provisioning.

Frozen dataclasses with the documented, secure defaults; ``gke_accel.model.core.parse`` builds them from YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gke_accel.model.lifecycle.spec import DisruptionBudgetSpec, ExclusionEndBehavior
from gke_accel.model.security.spec import BinaryAuthorizationSpec, SecretsEncryptionSpec

ExclusionScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]
ControlPlaneAccess = Literal["dns", "ip"]
ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED"]
SecurityPosture = Literal["basic", "disabled"]


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
    """An exclusion; ``end_time_behavior: UNTIL_END_OF_SUPPORT`` (no ``end_time``) holds it until the
    cluster's minor version reaches end of support (scopes NO_MINOR_UPGRADES, NO_MINOR_OR_NODE_UPGRADES)."""

    name: str
    start_time: str
    end_time: str | None = None
    scope: ExclusionScope = "NO_MINOR_OR_NODE_UPGRADES"
    end_time_behavior: ExclusionEndBehavior | None = None


@dataclass(frozen=True)
class MaintenanceSpec:
    """A recurring maintenance window (RFC 3339 times, RFC 5545 RRULE) plus exclusions."""

    start_time: str = "2025-01-04T03:00:00Z"
    end_time: str = "2025-01-04T11:00:00Z"
    recurrence: str = "FREQ=WEEKLY;BYDAY=SA,SU"
    exclusions: tuple[MaintenanceExclusion, ...] = ()
    disruption_budget: DisruptionBudgetSpec | None = None  # docs/lifecycle.md


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
    deletion_protection_reason: str | None = None  # required to turn it off in production
    private_endpoint: bool = False
    master_authorized_networks: tuple[AuthorizedNetwork, ...] = ()
    # How Terraform (and kubectl) reach the control plane: "dns" = GKE's DNS-based endpoint,
    # IAM-authorized, from anywhere Google APIs are reachable; "ip" = the IP endpoint, from
    # deployer_cidr, which must lie inside master_authorized_networks (model/cluster/access.py).
    control_plane_access: ControlPlaneAccess = "dns"
    deployer_cidr: str | None = None
    rbac_security_group: str | None = None  # gke-security-groups@<domain>, for Google Groups in RBAC
    # GKE security posture (workload configuration audit): "basic" or "disabled" (docs/security.md).
    # Workload vulnerability scanning is always sent off (VULNERABILITY_DISABLED): GKE's API marks
    # both scanning tiers, VULNERABILITY_BASIC and VULNERABILITY_ENTERPRISE, deprecated.
    security_posture: SecurityPosture = "basic"
    network: NetworkSpec = field(default_factory=NetworkSpec)
    maintenance: MaintenanceSpec = field(default_factory=MaintenanceSpec)
    system_pool: SystemPoolSpec = field(default_factory=SystemPoolSpec)
    auto_provisioning: AutoProvisioningSpec = field(default_factory=AutoProvisioningSpec)
    secrets_encryption: SecretsEncryptionSpec = field(default_factory=SecretsEncryptionSpec)
    binary_authorization: BinaryAuthorizationSpec = field(default_factory=BinaryAuthorizationSpec)
    labels: dict[str, str] = field(default_factory=dict)
