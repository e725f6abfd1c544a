"""What ``synth`` prints about the capacity ladders: per accelerator shape its ComputeClass and each
rung with the pools behind it and its hourly price (model/capacity/view.py)."""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan
from gke_accel.model.capacity.view import HEADERS, ladder_lines
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.tables import render_table


def synth_section(plan: EnvironmentPlan) -> str:
    """Text printed by ``gke-accel synth`` for one environment ("" without ``capacity:``)."""
    parts = []
    for ladder, rows in ladder_lines(plan, ladders_of(plan)):
        title = (
            f"  capacity ladder {ladder.shape} (ComputeClass {ladder.class_name}, "
            f"whenUnsatisfiable {ladder.when_unsatisfiable}"
            + (", active migration to better rungs" if ladder.optimize_rule_priority else "")
            + "):"
        )
        parts.append(render_table(HEADERS, [r.cells() for r in rows], title))
    return "\n".join(parts)
