"""Capacity, team quotas and cost of one environment plan, from whichever model code is loaded.

Imports are lazy on purpose: when the base revision is synthesized in-process, ``gke_accel.model``
is the BASE's model, so "before" is computed by the base's own code. The team-quota table
(``capacity_rows``) and the cost model (``estimate_environment``) are optional: without them the
review shows pool capacity only, and no cost. Module paths changed when ``model/`` got subpackages,
so each name is looked up at its current path first, then at its path in older revisions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .ladder import ladder_facts
from .model import CapacityLine, EnvironmentFacts


def model_attr(name: str, *modules: str) -> Any:
    """``name`` from the first of ``modules`` (current path first, older revisions' paths after) that
    has it; None when no revision's layout has it."""
    for module in modules:
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    return None


def _pool_capacity(plan: Any) -> list[CapacityLine]:
    totals: dict[tuple[str, str], list[int]] = {}
    for pool in plan.pools:
        low, high = pool.chip_bounds()
        entry = totals.setdefault((pool.resource, pool.accelerator), [0, 0])
        entry[0] += low
        entry[1] += high
    return [CapacityLine(resource, accel, low, high) for (resource, accel), (low, high) in sorted(totals.items())]


def _capacity_rows() -> Callable[[Any], Any] | None:
    capacity_rows = model_attr("capacity_rows", "gke_accel.model.platform.capacity", "gke_accel.model.capacity")
    if capacity_rows is None:  # absent in revisions older than the team-quota work
        return None

    def rows(plan: Any) -> Any:
        return capacity_rows(plan.pools, plan.spec.teams)

    return rows


def _estimate() -> Callable[[Any], Any] | None:
    estimate: Callable[[Any], Any] | None = model_attr(
        "estimate_environment", "gke_accel.model.observability.cost", "gke_accel.model.cost"
    )
    return estimate


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _quota_capacity(plan: Any, rows_of: Callable[[Any], Any]) -> tuple[CapacityLine, ...]:
    lines = (
        CapacityLine(
            str(r.resource),
            str(r.accelerator),
            int(r.chips_min),
            int(r.chips_max),
            int(r.quota_total),
            {str(k): int(v) for k, v in dict(r.team_quotas).items()},
            bool(r.over_committed),
        )
        for r in rows_of(plan)
    )
    return tuple(sorted(lines, key=lambda line: line.key))


def _cost(plan: Any, estimate: Callable[[Any], Any]) -> dict[str, Any]:
    data = estimate(plan).to_dict()
    return {
        "total_monthly_min": float(data.get("total_monthly_min") or 0.0),
        "total_monthly_max": float(data.get("total_monthly_max") or 0.0),
        "source_date": str(data.get("source_date", "")),
        "pools": [
            {
                "name": str(p.get("name", "")),
                "monthly_min": _number(p.get("monthly_min")),
                "monthly_max": _number(p.get("monthly_max")),
            }
            for p in data.get("pools", [])
        ],
    }


def _queues(plan: Any) -> dict[str, str]:
    """Team -> "nominal ...; may borrow ...; ceiling ..." from the queue table (absent before Kueue)."""
    plan_of = model_attr("queue_plan_of", "gke_accel.model.queues.of_environment")
    rows_of = model_attr("queue_rows", "gke_accel.cli.queues_view")
    queues = plan_of(plan) if plan_of is not None and rows_of is not None else None
    if queues is None:
        return {}
    return {
        str(row[0]): f"nominal {row[2]}; may borrow {row[3]}; lends {row[4]}; preempts to borrow {row[5]}; "
        f"ceiling {row[6]}"
        for row in rows_of(queues)
    }


def environment_facts(plan: Any) -> EnvironmentFacts:
    """Accelerator capacity (with team quotas when known) and monthly cost (when known) of a plan.

    A failure of the optional models is reported in ``notes``, never fatal: the review still shows
    pool capacity."""
    notes: list[str] = []
    capacity: tuple[CapacityLine, ...] | None = None
    rows_of = _capacity_rows()
    if rows_of is not None:
        try:
            capacity = _quota_capacity(plan, rows_of)
        except Exception as exc:
            notes.append(f"team quota table failed: {type(exc).__name__}: {exc}")
            rows_of = None
    if capacity is None:
        capacity = tuple(_pool_capacity(plan))
    cost = None
    estimate = _estimate()
    if estimate is not None:
        try:
            cost = _cost(plan, estimate)
        except Exception as exc:
            notes.append(f"cost model failed: {type(exc).__name__}: {exc}")
    queues: dict[str, str] = {}
    try:
        queues = _queues(plan)
    except Exception as exc:
        notes.append(f"queue table failed: {type(exc).__name__}: {exc}")
    ladders: dict[str, tuple[str, ...]] = {}
    ladders_of = model_attr("ladders_of", "gke_accel.model.environment.ladders")  # absent before ladders
    if ladders_of is not None:
        try:
            ladders = ladder_facts(plan, ladders_of)
        except Exception as exc:
            notes.append(f"capacity ladders failed: {type(exc).__name__}: {exc}")
    production = getattr(getattr(plan, "spec", None), "production", None)
    return EnvironmentFacts(
        capacity=capacity,
        quotas_known=rows_of is not None,
        cost=cost,
        notes=tuple(notes),
        queues=queues,
        production=None if production is None else bool(production),
        ladders=ladders,
    )


def facts_to_dict(facts: EnvironmentFacts) -> dict[str, Any]:
    return {
        "capacity": [
            {
                "resource": c.resource,
                "accelerator": c.accelerator,
                "chips_min": c.chips_min,
                "chips_max": c.chips_max,
                "quota_total": c.quota_total,
                "team_quotas": dict(c.team_quotas),
                "over_committed": c.over_committed,
            }
            for c in facts.capacity
        ],
        "quotas_known": facts.quotas_known,
        "cost": facts.cost,
        "notes": list(facts.notes),
        "queues": dict(facts.queues),
        "production": facts.production,
        "ladders": {k: list(v) for k, v in facts.ladders.items()},
    }


def facts_from_dict(data: dict[str, Any]) -> EnvironmentFacts:
    return EnvironmentFacts(
        capacity=tuple(
            CapacityLine(
                c["resource"],
                c["accelerator"],
                int(c["chips_min"]),
                int(c["chips_max"]),
                c.get("quota_total"),
                dict(c.get("team_quotas") or {}),
                c.get("over_committed"),
            )
            for c in data.get("capacity", [])
        ),
        quotas_known=bool(data.get("quotas_known")),
        cost=data.get("cost"),
        notes=tuple(data.get("notes") or ()),
        queues=dict(data.get("queues") or {}),
        production=data.get("production"),
        ladders={k: tuple(v) for k, v in (data.get("ladders") or {}).items()},
    )
