"""The queue replay's numbers and what counts as a change (pure Python, no twin).

Per team and run (``team_numbers``): utilization of its nominal share (chip-hours its admitted jobs
held / its nominal chips x the window), p50 and p95 wait (``simulate.metrics``: first admission -
submission, nearest rank, a job never admitted waits to the end of the window), preemptions suffered,
chip-hours borrowed and lent (``simulate.metrics``).

Noise (``cell``): the base is replayed twice. A cell's base value is the mean of the two, its Δ is head -
that mean, and its noise band is the larger of ``SPREAD`` x the two base runs' difference and the metric's
floor (``floors``). The floors are in the replay's own grain: the virtual clock moves in steps, and a
replay on a loaded machine can admit the largest job one step earlier or later than another replay of
the same config (Kueue breaks ties by whole-second timestamps and UIDs). So chip-hours have a floor of
two such shifts (2 x the largest job's chips x the step, at least 8), use of nominal that many chip-hours
of the team's nominal share over the window (at least 5 points), waits two steps (at least 1 h),
preemptions 1. |Δ| within the band is "no change"; so is a head equal to the base.

A job class (team, accelerator, chips x slices, priority) "can no longer be admitted" when jobs of that
class were admitted in both base runs and none was in the head run, or the head's config refuses it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

HOUR = 3600.0
# (key, label, unit) in table order
METRICS: tuple[tuple[str, str, str], ...] = (
    ("utilization", "use of nominal", "%"),
    ("wait_p50_h", "p50 wait", "h"),
    ("wait_p95_h", "p95 wait", "h"),
    ("preempted", "preemptions", ""),
    ("borrowed_chip_h", "borrowed", "chip-h"),
    ("lent_chip_h", "lent", "chip-h"),
)
SPREAD = 2.0  # the band is at least twice what two replays of the same base differ by
# the least floors, whatever the grain: 5 points of use, 1 h of wait, 1 preemption, one 8-chip slice-hour
FLOOR: dict[str, float] = {
    "utilization": 0.05,
    "wait_p50_h": 1.0,
    "wait_p95_h": 1.0,
    "preempted": 1.0,
    "borrowed_chip_h": 8.0,
    "lent_chip_h": 8.0,
}
NO_CHANGE = "no change"
EPS = 1e-9  # a Δ equal to the band (as floats add up) is inside it


def floors(largest_job_chips: int, step_h: float, nominal_chips: float, window_h: float) -> dict[str, float]:
    """A team's floors for a replay in steps of ``step_h`` hours whose largest job holds
    ``largest_job_chips``; ``nominal_chips`` the team's nominal (all flavors), over ``window_h`` hours."""
    chip_h = max(FLOOR["borrowed_chip_h"], 2 * largest_job_chips * step_h)
    share = nominal_chips * window_h
    return {
        "utilization": max(FLOOR["utilization"], chip_h / share) if share else FLOOR["utilization"],
        "wait_p50_h": max(FLOOR["wait_p50_h"], 2 * step_h),
        "wait_p95_h": max(FLOOR["wait_p95_h"], 2 * step_h),
        "preempted": FLOOR["preempted"],
        "borrowed_chip_h": chip_h,
        "lent_chip_h": chip_h,
    }


@dataclass(frozen=True)
class Cell:
    metric: str
    base: tuple[float, float]  # the two base runs
    head: float
    band: float

    @property
    def base_mean(self) -> float:
        return (self.base[0] + self.base[1]) / 2

    @property
    def delta(self) -> float:
        return self.head - self.base_mean

    @property
    def changed(self) -> bool:
        return abs(self.delta) > self.band + EPS

    @property
    def verdict(self) -> str:
        """ "no change", "higher" or "lower"."""
        if not self.changed:
            return NO_CHANGE
        return "higher" if self.delta > 0 else "lower"

    def as_dict(self) -> dict[str, Any]:
        return {"base_runs": list(self.base), "base": self.base_mean, "head": self.head, "delta": self.delta,
                "noise_band": self.band, "verdict": self.verdict}  # fmt: skip


def cell(metric: str, base: tuple[float, float], head: float, floor: float | None = None) -> Cell:
    band = max(SPREAD * abs(base[0] - base[1]), FLOOR[metric] if floor is None else floor)
    return Cell(metric, base, head, band)


def held_chip_hours(events: Iterable[Any], horizon: float, start: float = 0.0) -> dict[str, float]:
    """Per team: chip-hours of quota its admitted jobs held within [start, horizon) (admitted until
    evicted or finished; still held at the end counts to the horizon)."""
    held: dict[str, tuple[str, int, float]] = {}  # job -> (team, chips, since)
    out: dict[str, float] = defaultdict(float)

    def release(job: str, t: float) -> None:
        team, chips, since = held.pop(job)
        a, b = max(start, since), min(horizon, t)
        if b > a:
            out[team] += chips * (b - a) / HOUR

    for e in sorted(events, key=lambda e: e.t):
        if e.type == "admitted" and e.job not in held:
            held[e.job] = (e.team, e.chips, e.t)
        elif e.type in ("evicted", "finished") and e.job in held:
            release(e.job, e.t)
    for job in list(held):
        release(job, horizon)
    return dict(out)


def team_numbers(
    summaries: Mapping[str, Mapping[str, float]],
    held: Mapping[str, float],
    nominal: Mapping[str, Mapping[str, int]],
    window_h: float,
) -> dict[str, dict[str, float]]:
    """Per team, the replay's numbers: ``summaries`` is ``simulate.metrics`` ``TeamStats.summary()`` per
    team, ``held`` ``held_chip_hours``, ``nominal`` team -> flavor -> chips, ``window_h`` the window."""
    out: dict[str, dict[str, float]] = {}
    for team in sorted(set(summaries) | set(nominal)):
        s = summaries.get(team, {})
        share = sum(nominal.get(team, {}).values()) * window_h
        out[team] = {
            "utilization": held.get(team, 0.0) / share if share else 0.0,
            "wait_p50_h": float(s.get("wait_p50_h", 0.0)),
            "wait_p95_h": float(s.get("wait_p95_h", 0.0)),
            "preempted": float(s.get("preempted", 0)),
            "borrowed_chip_h": float(s.get("borrowed_chip_h", 0.0)),
            "lent_chip_h": float(s.get("lent_chip_h", 0.0)),
        }
    return out


def team_cells(
    base: tuple[Mapping[str, Mapping[str, float]], Mapping[str, Mapping[str, float]]],
    head: Mapping[str, Mapping[str, float]],
    team_floors: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, dict[str, Cell]]:
    """Per team (of either side) and metric, the cell (``team_floors``: team -> metric -> floor, else
    ``FLOOR``). A team only one side has counts 0 on the other."""
    teams = sorted(set(base[0]) | set(base[1]) | set(head))
    zero: dict[str, float] = {}
    out: dict[str, dict[str, Cell]] = {}
    for team in teams:
        b0, b1, h = base[0].get(team, zero), base[1].get(team, zero), head.get(team, zero)
        f = (team_floors or {}).get(team, {})
        out[team] = {m: cell(m, (b0.get(m, 0.0), b1.get(m, 0.0)), h.get(m, 0.0), f.get(m)) for m, _, _ in METRICS}
    return out


def job_class(team: str, accelerator: str, chips: int | None, slices: int, priority: str | None) -> str:
    """A job class in words: ``research: v5e 2x8 chips (training)``."""
    size = f"{slices}x{chips or 1}" if slices > 1 else f"{chips or 1}"
    return f"{team}: {accelerator} {size} {'chips' if (chips or 1) * slices > 1 else 'chip'} ({priority or 'default'})"


def admitted_classes(classes: Mapping[str, str], events: Iterable[Any]) -> set[str]:
    """The classes (``classes``: job name -> class) with at least one job admitted in ``events``."""
    return {classes[e.job] for e in events if e.type == "admitted" and e.job in classes}


def lost_classes(
    all_classes: Iterable[str],
    base_admitted: Sequence[set[str]],
    head_admitted: set[str],
    refused: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Class -> why it can no longer be admitted: admitted in every base run and never in the head run,
    or refused by the head's config (``refused``: class -> the config's reason)."""
    out: dict[str, str] = {}
    for c in sorted(set(all_classes)):
        if refused and c in refused:
            out[c] = refused[c]
        elif all(c in runs for runs in base_admitted) and c not in head_admitted:
            out[c] = "admitted in both base replays, never in the head's"
    return out
