"""Accelerator pools on a GkeCluster, rendered from their plans.

``PlannedPools`` renders the node pools one declared pool was planned into (one per multi-host
slice), each through ``AcceleratorNodePool``; it plans nothing. ``EnvironmentStack`` gives it the
environment plan's pools (``EnvironmentPlan.pools_of``), where ladders and lifecycle were applied once.

``TpuSlicePool`` and ``GpuNodePool`` are the entry points for composers outside a config file: each
takes a spec, plans it once with the same model functions the environment root uses
(``plan_declared_pool``, then ``attach_pool_plans``) and raises ConfigError at
construction for any mistake, with the same rules and messages as a config file (the spec is
re-parsed; pool names are unique per cluster).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from gke_accel.cdk._framework import Construct
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.node_pool import AcceleratorNodePool
from gke_accel.cdk.pool_registry import claim_after_teams, register_pool
from gke_accel.model.capacity.ladder import LadderPlan
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.props import drop_derived, lenient_props
from gke_accel.model.environment.pools import attach_pool_plans, plan_declared_pool
from gke_accel.model.lifecycle.plan import PoolLifecyclePlan
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec


class PlannedPools(Construct):
    """The node pools of one declared pool, from their final plans (one ``AcceleratorNodePool`` each)."""

    def __init__(self, scope: Construct, id: str, *, cluster: GkeCluster, plans: Sequence[NodePoolPlan]) -> None:
        super().__init__(scope, id)
        self.cluster = cluster
        self.plans = list(plans)
        self.pools: list[AcceleratorNodePool] = [cluster.node_pool(self, plan.name, plan) for plan in self.plans]


S = TypeVar("S", TpuPoolSpec, GpuPoolSpec)


class _SpecPools(PlannedPools, Generic[S]):
    """A declared pool from its spec, checked as a config file's pool is (re-parsed, a name unique in
    the cluster), planned once (``plan_declared_pool``, ``attach_pool_plans``) and rendered."""

    props: type[S]

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: GkeCluster,
        spec: S,
        ladders: Sequence[LadderPlan] = (),
        lifecycle: PoolLifecyclePlan | None = None,
    ) -> None:
        path = f"{'tpu' if self.props is TpuPoolSpec else 'gpu'}_pool {getattr(spec, 'name', '?')}"
        # every mistake at once: a field that does not parse keeps its default while the rules run
        spec, prior, replaced = lenient_props(self.props, spec, path)
        issues = IssueCollector(list(prior))
        cluster.claim_pool_name(spec.name, f"{path}.name", issues)
        zones = cluster.plan.node_zones
        plans = plan_declared_pool(spec, region=cluster.region, cluster_zones=zones, path=path, issues=issues)
        drop_derived(issues, len(prior), replaced)
        issues.raise_if_any()
        claim_after_teams(cluster, path)
        super().__init__(scope, id, cluster=cluster, plans=attach_pool_plans(plans, ladders, lifecycle))
        self.spec: S = spec  # validated and normalized: what Teams plans quotas against
        register_pool(cluster, self)


class TpuSlicePool(_SpecPools[TpuPoolSpec]):
    """A TPU slice pool (one node pool per multi-host slice). Props: ``cluster``, ``spec`` (a
    TpuPoolSpec), ``ladders`` (the environment's capacity ladders: a pool behind a rung gets its
    ComputeClass label and taint), ``lifecycle`` (the pool's upgrade and maintenance plan, model/lifecycle/)."""

    props = TpuPoolSpec


class GpuNodePool(_SpecPools[GpuPoolSpec]):
    """An NVIDIA GPU node pool. Props: ``cluster``, ``spec`` (a GpuPoolSpec), ``ladders``, ``lifecycle``
    (as for TpuSlicePool)."""

    props = GpuPoolSpec
