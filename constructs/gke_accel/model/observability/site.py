"""Where an environment runs, as observability reads it: the environment, project, region and
cluster that every alert, dashboard, quota and cost line names. Observability takes this, its own
config section and the pools, never the environment's plan (``model/environment`` assembles it);
``ObservedPlan`` is the part of an environment plan the older entry points (``plan_alerts(plan)``,
``dashboard_json(plan)``, ...) read, so they keep working for the constructs and the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from gke_accel.model.observability.spec import MonitoringSpec
from gke_accel.model.pools.node_pool import NodePoolPlan


@dataclass(frozen=True)
class Site:
    environment: str
    project_id: str
    region: str
    cluster: str  # the cluster's name (what metrics and logs filter on)
    location: str  # the cluster's region or zone


class _Cluster(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def location(self) -> str: ...


class _ClusterPlan(Protocol):
    @property
    def spec(self) -> _Cluster: ...

    @property
    def system_pool(self) -> NodePoolPlan: ...


class _Spec(Protocol):
    @property
    def project_id(self) -> str: ...

    @property
    def region(self) -> str: ...

    @property
    def monitoring(self) -> MonitoringSpec: ...

    @property
    def quota_preferences(self) -> bool: ...


class ObservedPlan(Protocol):
    """What observability reads of an environment plan (``EnvironmentPlan`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> _Spec: ...

    @property
    def cluster(self) -> _ClusterPlan: ...

    @property
    def pools(self) -> Sequence[NodePoolPlan]: ...

    @property
    def cpu_pools(self) -> Sequence[NodePoolPlan]: ...  # general-purpose pools for CPU-only pods


def site_of(plan: ObservedPlan) -> Site:
    c = plan.cluster.spec
    return Site(plan.name, plan.spec.project_id, plan.spec.region, c.name, c.location)
