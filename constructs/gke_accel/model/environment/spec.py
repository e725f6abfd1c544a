"""Config shape of one environment (``config/<env>.yaml``): one Terraform stack.

Every class is a frozen dataclass; rules that involve the catalog or several fields live in the
capability packages (``cluster``, ``pools``, ``platform``, ``observability``), not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gke_accel.model.capacity.spec import LadderSpec
from gke_accel.model.cluster.spec import ClusterSpec
from gke_accel.model.fleet.spec import FleetSpec
from gke_accel.model.lifecycle.spec import LifecycleSpec
from gke_accel.model.observability.spec import BudgetSpec, MonitoringSpec
from gke_accel.model.platform.spec import PlatformSpec, TeamSpec
from gke_accel.model.pools.spec import CpuPoolSpec, GpuPoolSpec, TpuPoolSpec
from gke_accel.model.queues.spec import QueuesSpec
from gke_accel.model.storage.spec import RestartSpec, WeightsSpec


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
    # The project's number (`gcloud projects describe`): given, nothing reads it from the API at plan
    # time (a budget filters on it), so every stack plans offline.
    project_number: str | None = None
    production: bool = False  # guard rails: model/security/rules.py
    backend: BackendSpec = field(default_factory=BackendSpec)
    labels: dict[str, str] = field(default_factory=dict)
    tpu_pools: tuple[TpuPoolSpec, ...] = ()
    gpu_pools: tuple[GpuPoolSpec, ...] = ()
    # General-purpose pools for CPU-only pods (model/pools/cpu_pool.py); none: such pods have no node
    cpu_pools: tuple[CpuPoolSpec, ...] = ()
    # In-cluster platform (teams, quotas, priority classes, checkpoints): model/platform/spec.py
    teams: tuple[TeamSpec, ...] = ()
    strict_capacity: bool = False  # team quotas above pool capacity: error instead of warning
    platform: PlatformSpec = field(default_factory=PlatformSpec)
    # Teams share accelerators through Kueue (present = on): model/queues/spec.py, docs/queues.md
    queues: QueuesSpec | None = None
    # Capacity ladders per accelerator shape -> ComputeClass, pool labels, flavor order (docs/capacity.md)
    capacity: dict[str, LadderSpec] = field(default_factory=dict)
    # Observability (alerts, dashboard, quota preferences, budget): model/observability/spec.py
    monitoring: MonitoringSpec = field(default_factory=MonitoringSpec)
    quota_preferences: bool = False
    budget: BudgetSpec | None = None
    # Upgrade and maintenance posture per pool role: model/lifecycle/, docs/lifecycle.md
    lifecycle: LifecycleSpec = field(default_factory=LifecycleSpec)
    # Restart fast: image streaming, Artifact Registry, preloaded images: model/storage/spec.py
    restart: RestartSpec = field(default_factory=RestartSpec)
    # Model weights of inference workloads, per team (gcs-fuse | hyperdisk-ml): model/storage/weights.py
    weights: WeightsSpec = field(default_factory=WeightsSpec)
    # A fleet manager: its worker environments in dispatch order, through Kueue's MultiKueue (docs/fleet.md)
    fleet: FleetSpec | None = None
