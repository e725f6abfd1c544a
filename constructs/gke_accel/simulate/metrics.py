"""Numbers from an event log (``events.Event``), pure Python.

Measured over the window [start, horizon): ``start`` > 0 is a warm-up (the cluster fills as it would
after last week's work) that no number counts, though the series shows it.
- utilization: chip-seconds held by Running pods / (capacity x window), per flavor and per resource
  (TPU chips, GPUs); plus a sampled series over [0, horizon) (utilization per flavor, queue depth per team);
- per team, of the jobs submitted in the window: submitted, admitted (at least once), admissions,
  finished; wait = all the time the job waited for quota: from submission to its first admission, plus
  from each eviction (preemption, node loss) to its next admission (a job still waiting at the end of
  the log counts its wait until then, ``censored``); ``first_wait``: only the first; p50/p95/max by
  nearest rank (the ceil(p n)-th smallest): with fewer than 20 jobs the p95 is the worst one, and the
  summary says so (``wait_p95_is_max``); and of every job, the evictions in the window: preempted (by
  preemption), node failures;
- goodput per team: chip-hours its jobs' pods ran / chip-hours its jobs asked for while waiting or
  holding quota (a job asks for its chips from submission to finish; the anchor: Google's fleet
  scheduling goodput, above 95%), its Deployments' replicas included (asked for: the replica count x
  a replica's chips over time; ran: their Running pods);
- borrowed: chip-hours of quota (admitted chips) above the team's nominal, per flavor; lent: the
  borrowed chip-hours of the flavor at each moment, split among the teams below their nominal in
  proportion to their idle nominal chips;
- lost work: chip-hours of the ``lost`` seconds of the window's evictions (since the last checkpoint).
- serving (a trace's Deployments, simulate/serving.py), per team beside its jobs, not in the jobs' numbers
  above (waits) except goodput: its replicas' Running pods count in utilization, borrowing and the holders
  series like any pod; ``serving_chip_h``: their chip-hours; replica-hours asked for (the replica count
  over time) and running, and ``replica_h_short``: asked for but not running (a server loses availability,
  not work: no lost work is counted for a replica); a wait per replica: from the scale-up (or the
  preemption) that left it missing to when a replica runs in its place, the oldest missing one first (a
  scale-down cancels the newest waits; still missing at the end: waited until then, ``replicas_never_ran``);
  ``replicas_preempted``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gke_accel.simulate.events import Event
from gke_accel.simulate.replicas import ReplicaTally

HOUR = 3600.0


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest rank: the ceil(p/100 x n)-th smallest (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def p95_is_max(n: int) -> bool:
    """Nearest-rank p95 of ``n`` values is the largest (n < 20): say "worst of n", not "p95"."""
    return n > 0 and math.ceil(0.95 * n) >= n


@dataclass
class TeamStats:
    submitted: int = 0
    admitted: int = 0
    admissions: int = 0
    preempted: int = 0
    node_failures: int = 0
    finished: int = 0
    waits: list[float] = field(default_factory=list)  # seconds, one per submitted job, re-queueing included
    first_waits: list[float] = field(default_factory=list)  # seconds: submission to first admission
    ran: float = 0.0  # chip-hours of Running pods (in the window)
    asked: float = 0.0  # chip-hours asked for: jobs waiting or holding quota (in the window)
    censored: int = 0  # jobs still waiting at the end
    borrowed: float = 0.0  # chip-hours
    lent: float = 0.0  # chip-hours
    lost: float = 0.0  # chip-hours
    serving_chip_h: float = 0.0  # chip-hours of Running replicas
    serving_asked_chip_h: float = 0.0  # chip-hours of the replicas asked for (count x chips over time)
    replica_h_asked: float = 0.0  # replica-hours asked for (the Deployments' replica counts over time)
    replica_h_running: float = 0.0
    replica_h_short: float = 0.0  # replica-hours asked for and not running
    replica_waits: list[float] = field(default_factory=list)  # seconds, one per replica that went missing
    replicas_preempted: int = 0
    replicas_never_ran: int = 0  # still missing at the end of the window

    def serving(self) -> dict[str, float | int]:
        return {
            "serving_chip_h": self.serving_chip_h, "replica_h_asked": self.replica_h_asked,
            "serving_asked_chip_h": self.serving_asked_chip_h,
            "replica_h_running": self.replica_h_running, "replica_h_short": self.replica_h_short,
            "replica_waits_n": len(self.replica_waits), "replica_wait_p50_h": percentile(self.replica_waits, 50) / HOUR,
            "replica_wait_max_h": max(self.replica_waits, default=0.0) / HOUR,
            "replicas_preempted": self.replicas_preempted, "replicas_never_ran": self.replicas_never_ran,
        }  # fmt: skip

    def goodput(self) -> float:
        """Chip-hours running / chip-hours asked for, of the team's jobs and its Deployments' replicas
        together (a replica asked for and not running waits like a job); 0 when nothing was asked."""
        asked = self.asked + self.serving_asked_chip_h
        return (self.ran + self.serving_chip_h) / asked if asked else 0.0

    def summary(self) -> dict[str, float | int]:
        return {
            "submitted": self.submitted, "admitted": self.admitted, "admissions": self.admissions,
            "preempted": self.preempted, "node_failures": self.node_failures, "finished": self.finished,
            "wait_p50_h": percentile(self.waits, 50) / HOUR, "wait_p95_h": percentile(self.waits, 95) / HOUR,
            "wait_max_h": max(self.waits, default=0.0) / HOUR, "never_admitted": self.censored,
            "waits_n": len(self.waits), "wait_p95_is_max": p95_is_max(len(self.waits)),
            "first_wait_p50_h": percentile(self.first_waits, 50) / HOUR,
            "first_wait_p95_h": percentile(self.first_waits, 95) / HOUR,
            "ran_chip_h": self.ran, "asked_chip_h": self.asked,
            "goodput": self.goodput(),
            "borrowed_chip_h": self.borrowed, "lent_chip_h": self.lent, "lost_chip_h": self.lost,
            **self.serving(),
        }  # fmt: skip


@dataclass
class Metrics:
    horizon: float
    utilization: dict[str, float]  # flavor -> share
    by_resource: dict[str, float]  # google.com/tpu | nvidia.com/gpu -> share
    teams: dict[str, TeamStats]
    series: list[dict[str, object]]  # {"t_h", "util": {flavor: share}, "pending": {team: n}, "held": {team: {..}}}
    start: float = 0.0  # simulated seconds of warm-up before the window
    marks: list[tuple[float, str, str]] = field(default_factory=list)  # (t_h, team, preempted | node-failure)

    def as_dict(self) -> dict[str, object]:
        return {
            "horizon_h": self.horizon / HOUR,
            "measured_from_h": self.start / HOUR,
            "utilization": self.utilization,
            "utilization_by_resource": self.by_resource,
            "teams": {t: s.summary() for t, s in sorted(self.teams.items())},
            "series": self.series,
            "evictions": [{"t_h": t, "team": team, "cause": cause} for t, team, cause in self.marks],
        }


def compute(
    events: Sequence[Event],
    *,
    horizon: float,
    capacity: Mapping[str, int],
    resource_of: Mapping[str, str],
    nominal: Mapping[str, Mapping[str, int]],
    samples: int = 200,
    start: float = 0.0,
) -> Metrics:
    """Metrics of ``events`` over [start, horizon); ``capacity`` and ``resource_of`` per flavor,
    ``nominal`` team -> flavor -> chips."""
    ordered = sorted(events, key=lambda e: e.t)
    teams: dict[str, TeamStats] = defaultdict(TeamStats)
    srv = ReplicaTally(teams, start)
    running: dict[str, tuple[str, int]] = {}  # job -> (flavor, chips)
    held: dict[str, tuple[str, str, int]] = {}  # job -> (team, flavor, chips)
    submitted: dict[str, float] = {}
    first_admit: dict[str, float] = {}
    waiting_since: dict[str, float] = {}  # job -> when it last began to wait (submission or eviction)
    waited: dict[str, float] = defaultdict(float)  # job -> seconds waited before its current wait
    team_of = {ev.job: ev.team for ev in ordered}
    chips_of: dict[str, int] = defaultdict(int)  # job -> chips it asks for (the largest any event names)
    for ev in ordered:
        chips_of[ev.job] = max(chips_of[ev.job], ev.chips)
    pending: dict[str, str] = {}  # job -> team
    area: dict[str, float] = defaultdict(float)
    end = max([horizon, *(e.t for e in ordered)])
    step = horizon / samples if samples else horizon
    series: list[dict[str, object]] = []
    marks: list[tuple[float, str, str]] = []
    next_sample = 0.0

    def sample(t: float) -> None:
        util = {f: 0.0 for f in capacity}
        for f, c in running.values():
            util[f] = util.get(f, 0.0) + c
        depth = {team: 0 for team in sorted(set(nominal) | set(teams))}
        for team in pending.values():
            depth[team] = depth.get(team, 0) + 1
        run: dict[tuple[str, str], int] = defaultdict(int)  # (team, flavor) -> chips of Running pods
        for job, (f, c) in running.items():
            run[(team_of[job], f)] += c
        held = {team: {"own": 0, "borrowed": 0} for team in depth}
        for (team, f), c in run.items():
            own = min(c, nominal.get(team, {}).get(f, 0))
            held.setdefault(team, {"own": 0, "borrowed": 0})
            held[team]["own"] += own
            held[team]["borrowed"] += c - own
        series.append({"t_h": t / HOUR, "util": {f: util[f] / capacity[f] for f in capacity if capacity[f]},
                       "pending": depth, "held": held})  # fmt: skip

    def advance(t0: float, t1: float) -> None:
        a, b = max(start, t0), min(horizon, t1)
        if b <= a:
            return
        dt = b - a
        for f, c in running.values():
            area[f] += c * dt
        for job, (_, c) in running.items():
            if job in srv.replica:
                teams[team_of[job]].serving_chip_h += c * dt / HOUR
            else:
                teams[team_of[job]].ran += c * dt / HOUR
        for job in set(pending) | set(held):
            teams[team_of[job]].asked += chips_of[job] * dt / HOUR
        srv.advance(dt)
        use: dict[tuple[str, str], int] = defaultdict(int)
        for team, f, c in [*held.values(), *srv.held.values()]:
            use[(team, f)] += c
        for f in capacity:
            over = {t: max(0, use[(t, f)] - nominal.get(t, {}).get(f, 0)) for t in set(nominal) | set(teams)}
            idle = {t: max(0, nominal.get(t, {}).get(f, 0) - use[(t, f)]) for t in set(nominal) | set(teams)}
            total_over, total_idle = sum(over.values()), sum(idle.values())
            for t in over:
                teams[t].borrowed += over[t] * dt / HOUR
                if total_over and total_idle:
                    teams[t].lent += total_over * idle[t] / total_idle * dt / HOUR

    now = 0.0
    for e in [*ordered, None]:
        t = end if e is None else e.t
        while next_sample < min(t, horizon) or (e is None and next_sample < horizon):
            advance(now, next_sample)
            now = max(now, next_sample)
            sample(next_sample)
            next_sample += step
        advance(now, t)
        now = max(now, t)
        if e is None:
            break
        s = teams[e.team]
        if e.deployment:  # serving: a Deployment's scaling or one of its replicas
            if e.type == "running" and e.chips:
                running[e.job] = (e.flavor, e.chips)
            elif e.type in ("running", "evicted", "finished"):
                running.pop(e.job, None)
            if e.type == "evicted":
                marks.append((e.t / HOUR, e.team, e.detail))
            srv.event(e)
            continue
        counted = submitted.get(e.job, e.t) >= start  # a job of the window (not of the warm-up)
        if e.type == "submitted":
            s.submitted += counted
            submitted[e.job] = e.t
            pending[e.job] = e.team
            waiting_since[e.job] = e.t
        elif e.type == "admitted":
            s.admissions += counted
            if e.job in waiting_since:
                waited[e.job] += e.t - waiting_since.pop(e.job)
            if e.job not in first_admit:
                first_admit[e.job] = e.t
                if counted:
                    s.admitted += 1
                    s.first_waits.append(e.t - submitted.get(e.job, e.t))
            held[e.job] = (e.team, e.flavor, e.chips)
            pending.pop(e.job, None)
            if e.job in running and not running[e.job][0]:  # Running seen before its admission (a log of
                running[e.job] = (e.flavor, running[e.job][1])  # an older runner): its chips count from here
        elif e.type == "running":
            if e.chips:
                running[e.job] = (e.flavor or held.get(e.job, ("", "", 0))[1], e.chips)
            else:
                running.pop(e.job, None)
        elif e.type == "evicted":
            marks.append((e.t / HOUR, e.team, e.detail))
            if e.t >= start:
                s.preempted += e.detail == "preempted"
                s.node_failures += e.detail == "node-failure"
                chips = held.get(e.job, (e.team, e.flavor, e.chips))[2] or e.chips
                s.lost += e.lost * chips / HOUR
            running.pop(e.job, None)
            held.pop(e.job, None)
            pending[e.job] = e.team
            waiting_since.setdefault(e.job, e.t)
        elif e.type == "finished":
            s.finished += counted
            running.pop(e.job, None)
            held.pop(e.job, None)
            pending.pop(e.job, None)
            if counted:
                s.waits.append(waited[e.job])
            waiting_since.pop(e.job, None)
    for job, team in pending.items():
        if job in waiting_since:
            waited[job] += end - waiting_since.pop(job)
        if job not in first_admit and submitted.get(job, end) >= start:
            teams[team].censored += 1
            teams[team].first_waits.append(end - submitted.get(job, end))
    srv.close(end)
    finished = {e.job for e in ordered if e.type == "finished" and not e.deployment}
    for job in submitted:  # every job of the window not finished: its waits so far (censored at the end)
        if job not in finished and submitted[job] >= start:
            teams[team_of[job]].waits.append(waited[job])
    window = horizon - start
    util = {f: area[f] / (c * window) if c and window > 0 else 0.0 for f, c in capacity.items()}
    by_res: dict[str, float] = {}
    for res in sorted(set(resource_of.values())):
        flavors = [f for f in capacity if resource_of.get(f) == res]
        cap = sum(capacity[f] for f in flavors)
        by_res[res] = sum(area[f] for f in flavors) / (cap * window) if cap and window > 0 else 0.0
    for team in nominal:
        teams[team]  # every team of the environment has a row, with or without jobs
    return Metrics(horizon, util, by_res, dict(teams), series, start, marks)
