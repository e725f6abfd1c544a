"""What the environment root does to a declared pool's plans after ``plan_tpu_pool``/``plan_gpu_pool``:
the capacity ladders' ComputeClass label and taint (``capacity.ladder.apply_ladders``) and the pool's
lifecycle (upgrades, maintenance). The root applies both to all pools (``load.py``); a construct
composed outside a config file (``cdk/accelerator_pools.py``) applies them here, to its own pools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gke_accel.model.capacity.ladder import LadderPlan, apply_ladders
from gke_accel.model.lifecycle.plan import PoolLifecyclePlan
from gke_accel.model.pools.node_pool import NodePoolPlan


def attach_pool_plans(
    plans: Sequence[NodePoolPlan], ladders: Sequence[LadderPlan], lifecycle: PoolLifecyclePlan | None
) -> tuple[NodePoolPlan, ...]:
    """``plans`` behind their rung (label, taint) and with ``lifecycle`` (when given)."""
    pools = apply_ladders(plans, ladders)
    return tuple(replace(p, lifecycle=lifecycle) for p in pools) if lifecycle is not None else pools
