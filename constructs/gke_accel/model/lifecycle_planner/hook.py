"""The one call ``plan_environment`` makes: derive every pool's lifecycle, check it, attach it to the pools."""

from __future__ import annotations

import re
from dataclasses import replace

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.lifecycle.plan import LifecyclePlan
from gke_accel.model.lifecycle_planner.config import LifecycleConfig
from gke_accel.model.lifecycle_planner.posture import plan_lifecycle
from gke_accel.model.lifecycle_planner.rules import check_lifecycle
from gke_accel.model.pools.node_pool import NodePoolPlan


def apply_lifecycle(
    spec: LifecycleConfig, pools: list[NodePoolPlan], issues: IssueCollector
) -> tuple[LifecyclePlan, list[NodePoolPlan]]:
    plan = plan_lifecycle(spec, pools)
    check_lifecycle(spec, plan, issues)
    owner: dict[str, str] = {}
    for name in plan.pools:
        slices = re.compile(rf"{re.escape(name)}(-s\d+)?")
        owner.update({p.name: name for p in pools if slices.fullmatch(p.name)})
    return plan, [replace(p, lifecycle=plan.pools[owner[p.name]]) if p.name in owner else p for p in pools]
