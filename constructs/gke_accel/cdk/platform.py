"""InClusterPlatform: driver DaemonSet, teams with accelerator quotas, priority classes and
checkpoint storage, declared with the kubernetes provider in the environment stack."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.model.environment import EnvironmentPlan


class InClusterPlatform(Construct):
    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, cluster: GkeCluster) -> None:
        super().__init__(scope, id)
