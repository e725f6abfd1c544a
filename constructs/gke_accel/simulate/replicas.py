"""Serving numbers of ``metrics.compute`` (a trace's Deployments, simulate/serving.py), pure Python: per
team, replica-hours asked for, running and short, a wait per replica, replicas preempted (the definitions
are in metrics.py's module doc); written into the team's ``TeamStats``."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from gke_accel.simulate.events import Event

if TYPE_CHECKING:
    from gke_accel.simulate.metrics import TeamStats

HOUR = 3600.0


class ReplicaTally:
    """The serving numbers of ``metrics.compute`` (its module doc), fed its Deployments' events in time order."""

    def __init__(self, teams: dict[str, TeamStats], start: float) -> None:
        self.teams, self.start = teams, start
        self.team: dict[str, str] = {}  # Deployment -> team
        self.target: dict[str, int] = {}  # Deployment -> replicas asked for
        self.chips: dict[str, int] = {}  # Deployment -> accelerators of one replica
        self.up: dict[str, set[str]] = defaultdict(set)  # Deployment -> its Running replicas (pods)
        self.missing: dict[str, list[float]] = defaultdict(list)  # Deployment -> when each missing one went
        self.replica: dict[str, str] = {}  # pod -> Deployment
        self.held: dict[str, tuple[str, str, int]] = {}  # pod -> (team, flavor, chips): admitted replicas

    def advance(self, dt: float) -> None:
        for dep, n in self.target.items():
            s, up = self.teams[self.team[dep]], len(self.up[dep])
            s.replica_h_asked += n * dt / HOUR
            s.replica_h_running += up * dt / HOUR
            s.replica_h_short += max(0, n - up) * dt / HOUR
            s.serving_asked_chip_h += n * self.chips.get(dep, 0) * dt / HOUR

    def wait_done(self, dep: str, t: float) -> None:
        if self.missing[dep]:
            went = self.missing[dep].pop(0)
            if went >= self.start:
                self.teams[self.team[dep]].replica_waits.append(t - went)

    def event(self, e: Event) -> None:
        dep = e.deployment
        self.team[dep] = e.team
        if e.type == "scaled":
            before = self.target.get(dep, 0)
            self.target[dep] = e.replicas
            self.chips[dep] = e.chips
            self.missing[dep] += [e.t] * max(0, e.replicas - before)
            extra = len(self.up[dep]) + len(self.missing[dep]) - e.replicas
            if extra > 0:  # scaled down: the newest waits are no longer asked for
                self.missing[dep] = self.missing[dep][: max(0, len(self.missing[dep]) - extra)]
            return
        self.replica[e.job] = dep
        if e.type == "admitted":
            self.held[e.job] = (e.team, e.flavor, e.chips)
        elif e.type == "running" and e.chips:
            if e.job not in self.up[dep]:
                self.up[dep].add(e.job)
                self.wait_done(dep, e.t)
        elif e.type in ("running", "evicted", "finished"):
            self.up[dep].discard(e.job)
            if e.type != "running":
                self.held.pop(e.job, None)
            if e.type == "evicted":
                self.teams[e.team].replicas_preempted += e.detail == "preempted" and e.t >= self.start
                if len(self.up[dep]) + len(self.missing[dep]) < self.target.get(dep, 0):
                    self.missing[dep].append(e.t)  # the ReplicaSet makes a new pod: it queues again

    def close(self, end: float) -> None:
        for dep, went in self.missing.items():
            for t in went:
                if t >= self.start:
                    self.teams[self.team[dep]].replica_waits.append(end - t)
                    self.teams[self.team[dep]].replicas_never_ran += 1
