"""Observability: alert policies, notification channels, dashboard, quota preferences and budget
for one environment."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.model.environment import EnvironmentPlan


class Observability(Construct):
    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, cluster: GkeCluster) -> None:
        super().__init__(scope, id)
