"""Lifecycle rules, all reported at once: exclusions within GKE's limits, windows that leave an upgrade
before end of support, upgrade settings that GKE accepts and never split a slice, and (a warning) a
training pool left without protection in production. Facts: ``model/lifecycle/gke_facts.py``."""

from __future__ import annotations

from datetime import timedelta

from gke_accel.model.cluster.maintenance import parse_rfc3339
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.lifecycle import gke_facts as f
from gke_accel.model.lifecycle.plan import LifecyclePlan
from gke_accel.model.lifecycle_planner.config import LifecycleConfig
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec

_SCOPED = ("NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES")


def _support_days(channel: str) -> int:
    return f.EXTENDED_SUPPORT_DAYS if channel == "EXTENDED" else f.STANDARD_SUPPORT_DAYS


def check_exclusions(spec: LifecycleConfig, plan: LifecyclePlan, issues: IssueCollector) -> None:
    m = spec.cluster.maintenance
    channel = spec.cluster.release_channel
    path = "cluster.maintenance.exclusions"
    total = len(m.exclusions) + (plan.exclusion is not None)
    if total > f.PROVIDER_MAX_EXCLUSIONS:
        issues.bad(
            path,
            total,
            "exclusions (with the training exclusion) is more than a cluster holds",
            f"at most {f.PROVIDER_MAX_EXCLUSIONS}",
        )
    no_upgrades = [i for i, e in enumerate(m.exclusions) if e.scope == "NO_UPGRADES"]
    if len(no_upgrades) > f.NO_UPGRADES_MAX_COUNT:
        issues.bad(
            f"{path}[{no_upgrades[-1]}].scope",
            "NO_UPGRADES",
            f"is the {len(no_upgrades)}th NO_UPGRADES exclusion; GKE allows {f.NO_UPGRADES_MAX_COUNT}",
            f"at most {f.NO_UPGRADES_MAX_COUNT} NO_UPGRADES exclusions, or a NO_MINOR_* scope",
        )
    support = _support_days(channel)
    for i, e in enumerate(m.exclusions):
        p = f"{path}[{i}]"
        if e.end_time_behavior == "UNTIL_END_OF_SUPPORT":
            if e.scope not in _SCOPED:
                issues.bad(
                    f"{p}.end_time_behavior",
                    e.end_time_behavior,
                    f"cannot hold a {e.scope} exclusion",
                    "scope NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES, or an end_time",
                )
            if e.end_time is not None:
                issues.bad(
                    f"{p}.end_time",
                    e.end_time,
                    "is set with end_time_behavior UNTIL_END_OF_SUPPORT",
                    "leave end_time out (GKE ends the exclusion at end of support)",
                )
            continue
        if e.end_time is None:
            issues.bad(
                f"{p}.end_time", None, "is required", "an RFC 3339 time, or end_time_behavior: UNTIL_END_OF_SUPPORT"
            )
            continue
        start = parse_rfc3339(e.start_time, f"{p}.start_time", IssueCollector())
        end = parse_rfc3339(e.end_time, f"{p}.end_time", IssueCollector())
        if start is None or end is None or end <= start:
            continue  # reported by model/cluster/maintenance.py
        days = (end - start) / timedelta(days=1)
        if e.scope == "NO_UPGRADES" and days > f.NO_UPGRADES_MAX_DAYS:
            issues.bad(
                f"{p}.end_time",
                e.end_time,
                f"makes a {days:g}-day NO_UPGRADES exclusion; GKE allows {f.NO_UPGRADES_MAX_DAYS} days",
                f"at most {f.NO_UPGRADES_MAX_DAYS} days after start_time, or scope NO_MINOR_OR_NODE_UPGRADES",
            )
        elif e.scope in _SCOPED and days > support:
            issues.bad(
                f"{p}.end_time",
                e.end_time,
                f"holds {e.scope} for {days:g} days, past the {support}-day support of a minor version on "
                f"{channel}: the cluster would reach end of support with no upgrade allowed",
                "end_time_behavior: UNTIL_END_OF_SUPPORT (and no end_time), or an earlier end_time",
            )
    if plan.exclusion is not None:
        if spec.lifecycle.exclusion_start is not None:
            parse_rfc3339(spec.lifecycle.exclusion_start, "lifecycle.exclusion_start", issues)
        if plan.exclusion.name in {e.name for e in m.exclusions}:
            issues.bad(
                path,
                plan.exclusion.name,
                "is the name of the training exclusion gke-accel adds",
                "another exclusion name",
            )


def check_disruption_budget(spec: LifecycleConfig, issues: IssueCollector) -> None:
    budget = spec.cluster.maintenance.disruption_budget
    if budget is None:
        return
    path = "cluster.maintenance.disruption_budget"
    support = _support_days(spec.cluster.release_channel)
    if budget.minor_interval_days is not None:
        if budget.minor_interval_days < 1:
            issues.bad(
                f"{path}.minor_interval_days", budget.minor_interval_days, "is not a number of days", "1 or more"
            )
        elif budget.minor_interval_days >= support:
            issues.bad(
                f"{path}.minor_interval_days",
                budget.minor_interval_days,
                f"days between minor upgrades is at least a minor version's {support}-day support on "
                f"{spec.cluster.release_channel}: no minor upgrade could come before end of support",
                f"fewer than {support} days (GKE's default: {f.DEFAULT_MINOR_INTERVAL_DAYS})",
            )
    if budget.patch_interval_hours is not None and budget.patch_interval_hours < 1:
        issues.bad(
            f"{path}.patch_interval_hours",
            budget.patch_interval_hours,
            "is not a number of hours",
            f"1 or more (GKE's default: {f.DEFAULT_PATCH_INTERVAL_HOURS})",
        )


def check_pool_lifecycle(spec: LifecycleConfig, plan: LifecyclePlan, issues: IssueCollector) -> None:
    pools: list[tuple[str, TpuPoolSpec | GpuPoolSpec]] = [(f"tpu_pools[{i}]", p) for i, p in enumerate(spec.tpu_pools)]
    pools += [(f"gpu_pools[{i}]", p) for i, p in enumerate(spec.gpu_pools)]
    for path, pool in pools:
        life = plan.pools.get(pool.name)
        o = pool.lifecycle
        p = f"{path}.lifecycle"
        if life is None:
            continue
        compact = isinstance(pool, GpuPoolSpec) and pool.placement == "compact"
        if o.upgrade == "blue-green" and (compact or _is_slice(pool, plan)):
            issues.bad(
                f"{p}.upgrade",
                "blue-green",
                "is not possible with COMPACT placement or a TPU slice (GKE: no blue-green with compact placement)",
                "surge",
            )
        if o.upgrade == "blue-green" and (o.max_surge is not None or o.max_unavailable is not None):
            issues.bad(
                f"{p}.upgrade", "blue-green", "does not use max_surge/max_unavailable", "surge, or leave them out"
            )
        if o.soak_hours is not None and o.upgrade != "blue-green":
            issues.bad(f"{p}.soak_hours", o.soak_hours, "is only used by blue-green upgrades", "upgrade: blue-green")
        for name in ("max_surge", "max_unavailable"):
            value = getattr(o, name)
            if value is not None and value < 0:
                issues.bad(f"{p}.{name}", value, "is negative", "0 or more")
        if life.strategy == "SURGE" and life.max_surge == 0 and life.max_unavailable == 0:
            issues.bad(
                f"{p}.max_unavailable",
                0,
                "with max_surge 0 lets no node upgrade (GKE refuses it)",
                "max_surge or max_unavailable above 0",
            )
        gang = _gang(pool, plan)
        if _is_slice(pool, plan) and life.strategy == "SURGE" and gang and not life.whole_slice:
            issues.bad(
                f"{p}.max_unavailable",
                life.max_unavailable,
                f"upgrades part of a {gang}-VM multi-host slice at a time (each node upgrade stops the whole slice)",
                f"max_surge 0 and max_unavailable {gang} (the whole slice at once; the default)",
            )
        if spec.production and life.role == "training" and not life.protected and not _held(spec):
            issues.warn(
                f"{p}.protect",
                f"training pool {pool.name} has no maintenance exclusion in production: "
                "GKE may upgrade its nodes (and stop its jobs) in any maintenance window",
            )
        if spec.production and life.role == "dev" and life.role_source == "default":
            issues.warn(
                f"{path}.role",
                f"pool {pool.name} has no role and none follows from the teams' priority "
                "classes: GKE's upgrade defaults apply in production (set role: training|inference|batch)",
            )


def _held(spec: LifecycleConfig) -> bool:
    return any(
        e.scope == "NO_MINOR_OR_NODE_UPGRADES" and e.end_time_behavior == "UNTIL_END_OF_SUPPORT"
        for e in spec.cluster.maintenance.exclusions
    )


def _is_slice(pool: TpuPoolSpec | GpuPoolSpec, plan: LifecyclePlan) -> bool:
    life = plan.pools.get(pool.name)
    return isinstance(pool, TpuPoolSpec) and life is not None and life.gang_nodes is not None


def _gang(pool: TpuPoolSpec | GpuPoolSpec, plan: LifecyclePlan) -> int | None:
    life = plan.pools.get(pool.name)
    return life.gang_nodes if life is not None else None


def check_lifecycle(spec: LifecycleConfig, plan: LifecyclePlan, issues: IssueCollector) -> None:
    check_exclusions(spec, plan, issues)
    check_disruption_budget(spec, issues)
    check_pool_lifecycle(spec, plan, issues)
