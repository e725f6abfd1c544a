"""``gke-accel cost``: monthly cost per pool from the catalog's list prices, and the
observability section of ``gke-accel synth`` (quota-preference derivation, alerts, cost total).

Model only: no provider bindings are loaded.
"""

from __future__ import annotations

import argparse
import json

from gke_accel.cli.common import EXIT_OK, Subcommands, add_command, add_env_args, selected_plans
from gke_accel.cli.storage_summary import storage_lines
from gke_accel.model import EnvironmentPlan
from gke_accel.model.observability.alerts import plan_alerts
from gke_accel.model.observability.cost import EnvironmentCost, estimate_environment
from gke_accel.model.observability.quotas import derivation_text
from gke_accel.tables import MAX_WIDTH, fit_text, render_table


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:,.0f}"


def cost_line(cost: EnvironmentCost) -> str:
    unpriced = f"; unpriced: {', '.join(p.split(' (')[0] for p in cost.unpriced)}" if cost.unpriced else ""
    return (
        f"  cost: {_usd(cost.total_monthly_min)}-{_usd(cost.total_monthly_max)}/month at list prices "
        f"(incl. cluster fee {_usd(cost.cluster_fee_monthly)}; prices of {cost.source_date}{unpriced}); "
        f"see gke-accel cost --env {cost.environment}"
    )


def cost_text(cost: EnvironmentCost) -> str:
    rows = []
    notes = []
    for p in cost.pools:
        flags = "verify" if p.verify else ""
        if p.note:
            notes.append(f"  {p.name}: {p.note}")
            flags = (flags + " *").strip()
        rows.append(
            [
                p.name,
                p.machine_type,
                f"{p.nodes_min}-{p.nodes_max}",
                p.consumption,
                _usd(p.monthly_min),
                _usd(p.monthly_max),
                _usd(p.monthly_max_on_demand),
                _usd(p.monthly_max_spot),
                flags or "-",
            ]
        )
    rows.append(["(cluster fee)", "GKE Standard", "-", "-", *[_usd(cost.cluster_fee_monthly)] * 2, "-", "-", "-"])
    table = render_table(
        [
            "pool",
            "machine",
            "nodes",
            "consumption",
            "min/month",
            "max/month",
            "max on-demand",
            "max spot",
            "notes",
        ],
        rows,
        title=f"{cost.environment}: monthly cost at list prices ({cost.hours_per_month} h/month)",
        max_width=MAX_WIDTH,
    )
    lines = [
        table,
        *(["notes (*):", *notes] if notes else []),
        "",
        f"total: {_usd(cost.total_monthly_min)} at minimum size, {_usd(cost.total_monthly_max)} at maximum size "
        "(configured consumption, priced pools + cluster fee)",
        f"prices: {cost.source} (as of {cost.source_date}); rough us-central1 list prices, Spot prices change "
        "up to monthly; 'verify' = sources disagree, check before use",
    ]
    if cost.unpriced:
        lines.append("unpriced (left out of the totals): " + "; ".join(cost.unpriced))
    lines += unit_lines(cost)
    return "\n".join(lines)


def unit_lines(cost: EnvironmentCost) -> list[str]:
    """MIG and shared-GPU pools: what one ``nvidia.com/gpu: 1`` of a pod costs (a node's share)."""
    rows = []
    for p in cost.pools:
        if p.unit is None:
            continue
        u = p.unit
        priced = u.hourly is not None and u.monthly is not None
        price = f"${u.hourly:,.4f}/hour, ${u.monthly:,.2f}/month" if priced else "no price"
        rows.append(f"  {p.name}: {u.unit}, {u.per_node} per node: {price}")
    if not rows:
        return []
    head = "per unit a pod requests (nvidia.com/gpu: 1 on a partitioned or shared GPU; configured consumption):"
    return [head, *rows]


def synth_section(plan: EnvironmentPlan) -> str:
    """Text printed by ``gke-accel synth`` for one environment ("" for nothing)."""
    alerts = plan_alerts(plan)
    m = plan.spec.monitoring
    lines = [
        "  alerts: "
        + (", ".join(f"{a.name} ({a.severity})" for a in alerts) if alerts else "none")
        + (f"; dashboard: {'on' if m.enabled and m.dashboard else 'off'}")
        + (f"; budget: ${plan.spec.budget.amount_usd:,}/month" if plan.spec.budget else "; budget: none"),
        derivation_text(plan),
        *(fit_text(line) for line in storage_lines(plan)),
        cost_line(estimate_environment(plan)),
    ]
    return "\n".join(lines)


def cmd_cost(args: argparse.Namespace) -> int:
    costs = [estimate_environment(plan) for plan in selected_plans(args)]
    if args.json:
        print(json.dumps({c.environment: c.to_dict() for c in costs}, indent=2))
    else:
        print(fit_text("\n\n".join(cost_text(c) for c in costs)))
    return EXIT_OK


def register(sub: Subcommands) -> None:
    """Add this module's subcommand(s)."""
    p = add_command(
        sub,
        "cost",
        "monthly cost per pool at min/max size from catalog list prices",
        "gke-accel cost --env dev",
        "gke-accel cost --json > cost.json",
    )
    add_env_args(p, single_file=True)
    p.add_argument(
        "--json", action="store_true", help="print JSON: {environment: cost} (the form the plan review reads)"
    )
    p.set_defaults(func=cmd_cost)
