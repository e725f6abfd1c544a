"""TpuSlicePool and GpuNodePool: typed accelerator pools on a GkeCluster.

Each takes a spec, derives every value from the catalog (machine type, node count, placement,
labels, taints, autoscaling bounds) and raises ConfigError at construction for any mistake, with the
same rules and messages as a config file (the spec is re-parsed; pool names are unique per cluster).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gke_accel.cdk._framework import Construct
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.node_pool import AcceleratorNodePool
from gke_accel.cdk.pool_registry import claim_after_teams, register_pool
from gke_accel.model.capacity.ladder import LadderPlan, apply_ladders
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.props import drop_derived, lenient_props
from gke_accel.model.lifecycle.plan import PoolLifecyclePlan
from gke_accel.model.pools.gpu_pool import plan_gpu_pool
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec
from gke_accel.model.pools.tpu_pool import plan_tpu_pool


class _PlannedPools(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        cluster: GkeCluster,
        plans: list[NodePoolPlan],
        ladders: Sequence[LadderPlan] = (),
        lifecycle: PoolLifecyclePlan | None = None,
    ) -> None:
        super().__init__(scope, id)
        self.cluster = cluster
        plans = list(apply_ladders(plans, ladders))  # behind a rung: the ComputeClass label and taint
        # the pool's upgrade/maintenance posture (model/lifecycle/), derived by the environment plan
        self.plans = plans = [replace(p, lifecycle=lifecycle) for p in plans] if lifecycle is not None else plans
        self.pools: list[AcceleratorNodePool] = [cluster.node_pool(self, plan.name, plan) for plan in plans]


class TpuSlicePool(_PlannedPools):
    """A TPU slice pool (one node pool per multi-host slice). Props: ``cluster``, ``spec``, ``ladders``
    (the environment's capacity ladders: a pool behind a rung gets its ComputeClass label and taint)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: GkeCluster,
        spec: TpuPoolSpec,
        ladders: Sequence[LadderPlan] = (),
        lifecycle: PoolLifecyclePlan | None = None,
    ) -> None:
        path = f"tpu_pool {getattr(spec, 'name', '?')}"
        # every mistake at once: a field that does not parse keeps its default while the rules run
        spec, prior, replaced = lenient_props(TpuPoolSpec, spec, path)
        issues = IssueCollector(list(prior))
        cluster.claim_pool_name(spec.name, f"{path}.name", issues)
        plans = plan_tpu_pool(
            spec, region=cluster.region, cluster_zones=cluster.plan.node_zones, path=path, issues=issues
        )
        drop_derived(issues, len(prior), replaced)
        issues.raise_if_any()
        claim_after_teams(cluster, path)
        super().__init__(scope, id, cluster, plans, ladders, lifecycle)
        self.spec: TpuPoolSpec = spec  # validated and normalized: what Teams plans quotas against
        register_pool(cluster, self)


class GpuNodePool(_PlannedPools):
    """An NVIDIA GPU node pool. Props: ``cluster``, ``spec``, ``ladders`` (as for TpuSlicePool)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: GkeCluster,
        spec: GpuPoolSpec,
        ladders: Sequence[LadderPlan] = (),
        lifecycle: PoolLifecyclePlan | None = None,
    ) -> None:
        path = f"gpu_pool {getattr(spec, 'name', '?')}"
        # every mistake at once: a field that does not parse keeps its default while the rules run
        spec, prior, replaced = lenient_props(GpuPoolSpec, spec, path)
        issues = IssueCollector(list(prior))
        cluster.claim_pool_name(spec.name, f"{path}.name", issues)
        plans = plan_gpu_pool(
            spec, region=cluster.region, cluster_zones=cluster.plan.node_zones, path=path, issues=issues
        )
        drop_derived(issues, len(prior), replaced)
        issues.raise_if_any()
        claim_after_teams(cluster, path)
        super().__init__(scope, id, cluster, plans, ladders, lifecycle)
        self.spec: GpuPoolSpec = spec  # validated and normalized: what Teams plans quotas against
        register_pool(cluster, self)
