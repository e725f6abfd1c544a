"""A declared pool (an entry of ``tpu_pools:`` or ``gpu_pools:``) planned: ``plan_declared_pool`` derives
its node pools (one per multi-host slice), and ``attach_pool_plans`` adds what the environment root
adds after that: the capacity ladders' ComputeClass label and taint (``capacity.ladder.apply_ladders``)
and the pool's lifecycle (upgrades, maintenance). The root plans every declared pool with the first
and applies the second to all pools at once (``load.py``); a construct composed outside a config
file (``cdk/accelerator_pools.py``) calls both for its own pool."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gke_accel.catalog import Catalog
from gke_accel.model.capacity.ladder import LadderPlan, apply_ladders
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.lifecycle.plan import PoolLifecyclePlan
from gke_accel.model.pools.gpu_pool import plan_gpu_pool
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec
from gke_accel.model.pools.tpu_pool import plan_tpu_pool


def plan_declared_pool(
    spec: TpuPoolSpec | GpuPoolSpec,
    *,
    region: str,
    cluster_zones: tuple[str, ...],
    path: str,
    issues: IssueCollector,
    catalog: Catalog | None = None,
) -> list[NodePoolPlan]:
    """The node pools of one declared TPU or GPU pool; its mistakes go to ``issues``."""
    if isinstance(spec, TpuPoolSpec):
        return plan_tpu_pool(
            spec, region=region, cluster_zones=cluster_zones, path=path, issues=issues, catalog=catalog
        )
    return plan_gpu_pool(spec, region=region, cluster_zones=cluster_zones, path=path, issues=issues, catalog=catalog)


def attach_pool_plans(
    plans: Sequence[NodePoolPlan], ladders: Sequence[LadderPlan], lifecycle: PoolLifecyclePlan | None
) -> tuple[NodePoolPlan, ...]:
    """``plans`` behind their rung (label, taint) and with ``lifecycle`` (when given)."""
    pools = apply_ladders(plans, ladders)
    return tuple(replace(p, lifecycle=lifecycle) for p in pools) if lifecycle is not None else pools
