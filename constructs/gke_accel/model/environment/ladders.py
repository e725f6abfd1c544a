"""The capacity ladders of an environment (spec or validated plan)."""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.capacity.ladder import LadderPlan
from gke_accel.model.capacity.rules import plan_ladders
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.pools.node_pool import NodePoolPlan


def declared_pools(spec: EnvironmentSpec) -> list[str]:
    return [p.name for p in spec.tpu_pools] + [p.name for p in spec.gpu_pools]


def ladders_of_spec(
    spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector
) -> tuple[LadderPlan, ...]:
    return plan_ladders(
        spec.capacity,
        pools,
        declared_pools(spec),
        project=spec.project_id,
        min_master_version=spec.cluster.min_master_version,
        issues=issues,
    )


def ladders_of(env: EnvironmentPlan) -> tuple[LadderPlan, ...]:
    """The ladders of a validated environment (in config order), as the root planned them."""
    return env.ladders
