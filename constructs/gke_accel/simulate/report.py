"""A run's metrics as a text table, JSON, and a PNG plot (utilization per flavor and queue depth per
team over simulated time; matplotlib, the ``simulate`` extra)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

from gke_accel.simulate.metrics import Metrics
from gke_accel.tables import render_table

RESOURCE_NAMES = {"google.com/tpu": "TPU chips", "nvidia.com/gpu": "GPUs"}


def text(m: Metrics, header: Mapping[str, object]) -> str:
    head = ", ".join(f"{k} {v}" for k, v in header.items())
    util = ", ".join(f"{RESOURCE_NAMES.get(r, r)} {u:.1%}" for r, u in m.by_resource.items())
    flavors = ", ".join(f"{f} {u:.1%}" for f, u in sorted(m.utilization.items()))
    rows = []
    for team, s in sorted(m.teams.items()):
        d = s.summary()
        rows.append([
            team, str(d["submitted"]), str(d["admitted"]), str(d["preempted"]), str(d["node_failures"]),
            str(d["finished"]), f"{d['wait_p50_h']:.2f}", p95_cell(d), f"{d['wait_max_h']:.2f}",
            f"{d['goodput']:.1%}", f"{d['borrowed_chip_h']:.1f}", f"{d['lent_chip_h']:.1f}", f"{d['lost_chip_h']:.1f}",
        ])  # fmt: skip
    headers = ["team", "submitted", "admitted", "preempted", "node lost", "finished", "wait p50 h", "p95 h",
               "max h", "goodput", "borrowed chip-h", "lent chip-h", "lost chip-h"]  # fmt: skip
    table = render_table(headers, rows)
    window = f"{(m.horizon - m.start) / 3600:.1f} h" + (f" after {m.start / 3600:g} h of warm-up" if m.start else "")
    notes = ("waits include re-queueing after preemption or node loss; goodput = chip-hours running / "
             "chip-hours asked for while waiting or running")  # fmt: skip
    return f"{head}\nutilization over {window}: {util} (flavors: {flavors})\n{table}\n{notes}\n{serving(m)}"


def serving(m: Metrics) -> str:
    """The serving table (a trace's Deployments), per team with replicas; empty without any."""
    rows = []
    for team, s in sorted(m.teams.items()):
        d = s.serving()
        if not d["replica_h_asked"] and not d["serving_chip_h"]:
            continue
        hours = [f"{d[k]:.1f}" for k in ("replica_h_asked", "replica_h_running", "replica_h_short", "serving_chip_h")]
        rows.append(
            [
                team,
                *hours,
                str(d["replica_waits_n"]),
                f"{d['replica_wait_p50_h']:.2f}",
                f"{d['replica_wait_max_h']:.2f}",
                str(d["replicas_preempted"]),
                str(d["replicas_never_ran"]),
            ]
        )
    if not rows:
        return ""
    headers = ["serving", "replica-h asked", "running", "short", "chip-h", "replica waits", "wait p50 h", "max h",
               "preempted", "never ran"]  # fmt: skip
    note = (
        "a replica's wait: from the scale-up (or preemption) that left it missing until one runs in its "
        "place; short = replica-hours asked for but not running (a server loses availability, not work)"
    )
    return f"{render_table(headers, rows)}\n{note}\n"


def p95_cell(d: Mapping[str, object]) -> str:
    """The p95 wait, or "worst of N" where the nearest-rank p95 of N < 20 jobs is the largest."""
    value = f"{float(str(d['wait_p95_h'])):.2f}"
    return f"{value} (worst of {d['waits_n']})" if d.get("wait_p95_is_max") else value


def finite(value: object) -> object:
    """``value`` with every NaN or infinity replaced by None (JSON has neither; ``Infinity`` is not JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def as_json(m: Metrics, header: Mapping[str, object]) -> str:
    return json.dumps(finite({**header, **m.as_dict()}), indent=2, sort_keys=False, allow_nan=False) + "\n"


class PlotUnavailable(RuntimeError):
    pass


def plot(m: Metrics, path: Path, title: str) -> None:
    """Two panels: utilization per flavor (share of its chips held by Running pods) and pending jobs per team."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("--plot needs matplotlib: pip install 'gke-accel[simulate]'") from None
    t = [float(str(s["t_h"])) for s in m.series]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    flavors = sorted({f for s in m.series for f in s["util"]})  # type: ignore[attr-defined]
    for f in flavors:
        top.plot(t, [100 * s["util"].get(f, 0.0) for s in m.series], label=f, linewidth=1)  # type: ignore[attr-defined]
    if m.start:
        for ax in (top, bottom):
            ax.axvspan(0, m.start / 3600, color="0.9", label="_warm-up")
        top.text(m.start / 7200, 101, "warm-up", ha="center", va="bottom", fontsize=8)
    top.set_ylabel("chips in use (%)")
    top.set_ylim(0, 105)
    top.legend(loc="lower right", fontsize=8)
    top.set_title(title, fontsize=10)
    teams = sorted({team for s in m.series for team in s["pending"]})  # type: ignore[attr-defined]
    for team in teams:
        bottom.step(t, [s["pending"].get(team, 0) for s in m.series], where="post", label=team, linewidth=1)  # type: ignore[attr-defined]
    bottom.set_ylabel("jobs waiting")
    bottom.set_xlabel("simulated hours")
    bottom.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_holders(m: Metrics, path: Path, title: str) -> None:
    """Who holds the chips: per team, chips of its Running pods within its nominal quota (own) and above
    it (borrowed), stacked over simulated time; its preemptions (x) and node losses (v) marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("--plot needs matplotlib: pip install 'gke-accel[simulate]'") from None
    t = [float(str(s["t_h"])) for s in m.series]
    teams = sorted({team for s in m.series for team in s.get("held", {})})  # type: ignore[attr-defined]
    fig, axes = plt.subplots(max(1, len(teams)), 1, figsize=(10, 1.8 + 1.6 * len(teams)), sharex=True, squeeze=False)
    for ax, team in zip([a[0] for a in axes], teams, strict=False):
        own = [s["held"].get(team, {}).get("own", 0) for s in m.series]  # type: ignore[attr-defined]
        borrowed = [s["held"].get(team, {}).get("borrowed", 0) for s in m.series]  # type: ignore[attr-defined]
        ax.stackplot(t, own, borrowed, labels=["own quota", "borrowed"], step="post", colors=["#4477aa", "#ee8866"])
        top = max([o + b for o, b in zip(own, borrowed, strict=True)] + [1])
        for cause, marker, color in (("preempted", "x", "black"), ("node-failure", "v", "red")):
            xs = [th for th, tm, c in m.marks if tm == team and c == cause]
            if xs:
                ax.scatter(xs, [top * 1.05] * len(xs), marker=marker, color=color, s=18, label=cause, zorder=3)
        if m.start:
            ax.axvspan(0, m.start / 3600, color="0.92", zorder=0)
        ax.set_ylabel(f"{team}\nchips + GPUs", fontsize=8)
        ax.legend(loc="upper right", fontsize=7, ncol=4)
    axes[0][0].set_title(title + " (grey: warm-up)", fontsize=10)
    axes[-1][0].set_xlabel("simulated hours")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
