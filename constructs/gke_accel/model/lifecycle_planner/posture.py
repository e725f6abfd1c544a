"""Each pool role's defaults (docs/lifecycle.md), with the pool's own overrides applied.

- training: the cluster's NO_MINOR_OR_NODE_UPGRADES exclusion until end of support; a multi-host slice
  or a COMPACT (gang) pool upgrades all its nodes at once (surge 0, unavailable = the nodes), so a job
  restarts once and a slice is never split; other pools surge 1/0. Auto-repair stays on (off only where
  GKE requires it: flex-start, queued provisioning).
- inference and batch: rolling surge 1/0 (GKE drains a node honouring PodDisruptionBudgets); a
  multi-host slice still upgrades whole.
- dev (and every derived role under ``posture: gke-defaults``): GKE's defaults.
"""

from __future__ import annotations

import re

from gke_accel.model.lifecycle.plan import DerivedExclusion, LifecyclePlan, PoolLifecyclePlan
from gke_accel.model.lifecycle_planner.config import LifecycleConfig
from gke_accel.model.lifecycle_planner.roles import derive_role
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec

TRAINING_EXCLUSION = "gke-accel-training"


def posture_of(spec: LifecycleConfig) -> str:
    return spec.lifecycle.posture or ("by-role" if spec.production else "gke-defaults")


def _gang_nodes(plans: list[NodePoolPlan]) -> int | None:
    """Nodes that fail together: a multi-host slice's VMs, or a COMPACT GPU pool's largest size."""
    if not plans:
        return None
    first = plans[0]
    if first.kind == "tpu" and first.placement is not None and first.placement.tpu_topology:
        return first.node_bounds()[1] or None
    if first.kind == "gpu" and first.placement is not None and first.placement.compact:
        return max(1, first.node_bounds()[1])
    return None


def pool_lifecycle(
    spec: LifecycleConfig, pool: TpuPoolSpec | GpuPoolSpec, plans: list[NodePoolPlan]
) -> PoolLifecyclePlan:
    role, source = derive_role(spec, pool)
    applied = source == "config" or posture_of(spec) == "by-role"
    o = pool.lifecycle
    gang = _gang_nodes(plans)
    slice_pool = bool(plans) and plans[0].kind == "tpu" and gang is not None
    strategy: str | None = None
    surge: int | None = None
    unavailable: int | None = None
    if applied and role != "dev":
        strategy, surge, unavailable = "SURGE", 1, 0
        if gang is not None and (role == "training" or slice_pool):
            surge, unavailable = 0, gang
    elif plans and plans[0].kind == "gpu":
        strategy, surge, unavailable = "SURGE", 1, 0  # GKE's default, written out as before
    if o.upgrade == "blue-green":
        strategy, surge, unavailable = "BLUE_GREEN", None, None
    elif o.upgrade == "surge" or o.max_surge is not None or o.max_unavailable is not None:
        strategy = "SURGE"
        surge = o.max_surge if o.max_surge is not None else (surge if surge is not None else 0 if slice_pool else 1)
        unavailable = o.max_unavailable if o.max_unavailable is not None else (unavailable or 0)
    protected = applied and role == "training"
    if o.protect is not None:
        protected = o.protect
    whole = strategy == "SURGE" and gang is not None and surge == 0 and unavailable is not None and unavailable >= gang
    return PoolLifecyclePlan(
        role=role,
        role_source=source,
        strategy=strategy,  # type: ignore[arg-type]
        max_surge=surge,
        max_unavailable=unavailable,
        soak_seconds=round(o.soak_hours * 3600) if o.soak_hours is not None else None,
        host_maintenance=o.host_maintenance,
        protected=protected,
        whole_slice=whole,
        gang_nodes=gang,
    )


def plan_lifecycle(spec: LifecycleConfig, pools: list[NodePoolPlan]) -> LifecyclePlan:
    """Every pool spec's lifecycle (keyed by its name) and the cluster exclusion protected pools ask for."""
    result: dict[str, PoolLifecyclePlan] = {}
    specs: list[TpuPoolSpec | GpuPoolSpec] = [*spec.tpu_pools, *spec.gpu_pools]
    for pool in specs:
        slices = re.compile(rf"{re.escape(pool.name)}(-s\d+)?")
        mine = [p for p in pools if slices.fullmatch(p.name)]
        result[pool.name] = pool_lifecycle(spec, pool, mine)
    exclusion = None
    m = spec.cluster.maintenance
    held = any(
        e.scope == "NO_MINOR_OR_NODE_UPGRADES" and e.end_time_behavior == "UNTIL_END_OF_SUPPORT" for e in m.exclusions
    )
    if any(p.protected for p in result.values()) and not held:
        start = spec.lifecycle.exclusion_start or m.start_time
        exclusion = DerivedExclusion(name=TRAINING_EXCLUSION, start_time=start)
    return LifecyclePlan(posture=posture_of(spec), pools=result, exclusion=exclusion)  # type: ignore[arg-type]
