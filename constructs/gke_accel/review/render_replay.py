"""The queue replay's section of the comment (``replay.ReplaySection``): one row per team, a cell per
metric that says "no change" within the noise band and base → head (Δ) outside it; the job classes
that can no longer be admitted; or one line saying why the replay was skipped."""

from __future__ import annotations

from typing import Any

from .replay_delta import METRICS, Cell

MAX_CHANGES_SHOWN = 6


def _value(metric: str, v: float) -> str:
    if metric == "utilization":
        return f"{v:.0%}"
    if metric == "preempted":
        return f"{v:g}"
    if metric.endswith("_h") and metric.startswith("wait"):
        return f"{v:.1f} h"
    return f"{v:.0f}"


def cell_text(c: Cell) -> str:
    if not c.changed:
        return "no change"
    if c.metric == "utilization":
        delta = f"{c.delta * 100:+.0f} pts"
    elif c.metric == "preempted":
        delta = f"{c.delta:+g}"
    else:
        delta = f"{c.delta:+.1f}"
    return f"{_value(c.metric, c.base_mean)} → {_value(c.metric, c.head)} ({delta})"


def replay_section(section: Any) -> list[str]:
    if section is None or section.status == "not needed":
        return []
    if section.status == "skipped":
        return ["", f"**Queue replay** skipped: {section.reason}. The rest of this review is complete."]
    t = section.trace
    wall = f"; {t['wall_s']:.0f} s" if "wall_s" in t else ""
    out = ["", f"**Queue replay** (standard trace: {t['hours']:g} h, {t['jobs']} jobs, through the twin's real "
           f"Kueue and JobSet; base replayed twice for the noise band, head once{wall})"]  # fmt: skip
    changed = [f"{c.key} ({c.action})" for c in section.changes]
    if changed:
        more = f", … {len(changed) - MAX_CHANGES_SHOWN} more" if len(changed) > MAX_CHANGES_SHOWN else ""
        out += ["", "Shapes admission: " + ", ".join(f"`{c}`" for c in changed[:MAX_CHANGES_SHOWN]) + more]
    out += ["", "| team | " + " | ".join(label for _, label, _ in METRICS) + " |",
            "|---" * (len(METRICS) + 1) + "|"]  # fmt: skip
    for team, cells in section.cells.items():
        out.append(f"| {team} | " + " | ".join(cell_text(cells[m]) for m, _, _ in METRICS) + " |")
    if section.lost:
        out += ["", f"✖ **{len(section.lost)} job class(es) can no longer be admitted at all**:"]
        out += [f"- {cls}: {why}" for cls, why in section.lost.items()]
    notes = sorted({n for r in section.runs for n in r.get("notes", [])})
    if notes:
        out += ["", "<sub>replay notes: " + " · ".join(n[:200] for n in notes[:3]) + "</sub>"]
    return out
