"""A validated environment: the spec plus everything derived from it: the cluster, the pools, every
team's plan and what each registered capability planned. Capabilities never take it (they take the
spec, the pools and the teams: ``registry.py``); the constructs, the CLI and the workload tools do."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gke_accel.model.capacity.ladder import LadderPlan, flavor_ranks
from gke_accel.model.cluster.plan import ClusterPlan
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.fleet.plan import FleetPlan
from gke_accel.model.lifecycle.plan import LifecyclePlan
from gke_accel.model.observability.alert_shapes import AlertPlan
from gke_accel.model.observability.quotas import QuotaPlan
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.queues.plan import QueuePlan
from gke_accel.model.teams.plan import TeamPlan

SYSTEM_POOL_NAME = "system"


@dataclass(frozen=True)
class DeclaredPool:
    """One entry of ``tpu_pools:`` or ``gpu_pools:`` and the node pools derived from it (one per
    multi-host slice, in order): what the stack renders under one construct, ``<kind>-<name>``."""

    kind: Literal["tpu", "gpu"]
    name: str
    pools: tuple[str, ...]

    @property
    def construct_id(self) -> str:
        return f"{self.kind}-{self.name}"


@dataclass(frozen=True)
class EnvironmentPlan:
    """A validated environment: the spec plus everything derived from it."""

    spec: EnvironmentSpec
    cluster: ClusterPlan
    pools: tuple[NodePoolPlan, ...]
    source: str = ""
    warnings: tuple[str, ...] = ()  # e.g. team quotas over-committing pool capacity
    teams: tuple[TeamPlan, ...] = ()  # everything each team owns (model/teams)
    # what the capabilities planned (model/environment/registry.py)
    queues: QueuePlan | None = None  # the Kueue objects; None without ``queues:`` (model/queues)
    alerts: tuple[AlertPlan, ...] = ()  # the alert policies that apply (model/observability)
    quotas: QuotaPlan = field(default_factory=QuotaPlan)  # the accelerator quotas the pools need (observability)
    lifecycle: LifecyclePlan | None = None  # pool roles and upgrade posture: model/lifecycle/
    ladders: tuple[LadderPlan, ...] = ()  # the capacity ladders, in config order (model/capacity), planned once
    declared_pools: tuple[DeclaredPool, ...] = ()  # config order, TPU then GPU: which spec each pool comes from
    cpu_pools: tuple[NodePoolPlan, ...] = ()  # general-purpose pools for CPU-only pods (model/pools/cpu_pool.py)
    fleet: FleetPlan | None = None  # a fleet manager's workers and offers (model/fleet); its queues are the fleet's

    @property
    def name(self) -> str:
        return self.spec.environment

    def team(self, name: str) -> TeamPlan | None:
        """The plan of the team called ``name``, or None."""
        return next((t for t in self.teams if t.name == name), None)

    def pools_of(self, declared: DeclaredPool) -> tuple[NodePoolPlan, ...]:
        """The final plans (ladders and lifecycle applied) of the pools derived from ``declared``."""
        by_name = {p.name: p for p in self.pools}
        return tuple(by_name[name] for name in declared.pools)

    @property
    def flavor_ranks(self) -> dict[str, int]:
        """Kueue flavor -> its rung's position in its capacity ladder (model/capacity)."""
        return flavor_ranks(self.ladders)

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
