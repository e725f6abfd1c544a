"""A validated environment: the spec plus everything derived from it (no rules here, so every
capability may import it without a cycle)."""

from __future__ import annotations

from dataclasses import dataclass

from gke_accel.model.cluster.plan import ClusterPlan
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.lifecycle.plan import LifecyclePlan
from gke_accel.model.pools.node_pool import NodePoolPlan

SYSTEM_POOL_NAME = "system"


@dataclass(frozen=True)
class EnvironmentPlan:
    """A validated environment: the spec plus everything derived from it."""

    spec: EnvironmentSpec
    cluster: ClusterPlan
    pools: tuple[NodePoolPlan, ...]
    source: str = ""
    warnings: tuple[str, ...] = ()  # e.g. team quotas over-committing pool capacity
    lifecycle: LifecyclePlan | None = None  # pool roles and upgrade posture: model/lifecycle/

    @property
    def name(self) -> str:
        return self.spec.environment

    @property
    def prevent_destroy(self) -> bool:
        """Production with deletion protection on: Terraform refuses to destroy (or replace) the
        cluster, the accelerator pools and the checkpoint bucket (``lifecycle.prevent_destroy``)."""
        return self.spec.production and self.spec.cluster.deletion_protection

    @property
    def binary_authorization_mode(self) -> str:
        return self.spec.cluster.binary_authorization.mode or "audit"

    @property
    def state_prefix(self) -> str:
        return self.spec.backend.prefix or f"gke-accel/{self.spec.environment}"
