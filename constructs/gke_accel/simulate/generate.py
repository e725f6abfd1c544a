"""``--generate``: a seeded synthetic trace for an environment (deterministic per seed and settings).

Per team and accelerator of its quota (``teams[].accelerators``), the team offers ``load`` x its nominal
share x the horizon in chip-hours (so the whole cohort offers ``load`` of its capacity when quotas add up
to the pools). How the work arrives:
- training teams (no ``inference`` class): bursts at uniformly random times, each submitting 1-6 jobs
  within an hour, as many as the team's work needs (about ten a week for a staging training team),
  sizes mostly one slice, 1 in 5 two slices (multislice) where the
  pool has several slices; durations 1-12 h; checkpoints every 30 min (1 h for runs over 6 h);
- inference teams (their classes include ``inference``): a diurnal arrival rate peaking at
  ``peak_hour`` (night), 1 + cos around the peak, short jobs (30 min - 3 h) at inference priority,
  checkpoint-free.
The durations of a team are then scaled so its offered work is exactly its target.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from gke_accel.catalog import load_catalog
from gke_accel.model import EnvironmentPlan
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.simulate.trace import TraceJob
from gke_accel.workloads.nodes import pool_nodes

HOUR = 3600.0


@dataclass(frozen=True)
class Settings:
    seed: int = 1
    days: float = 7.0
    load: float = 0.9  # offered work / capacity
    peak_hour: float = 2.0  # inference peaks at 02:00


def _shapes(plan: EnvironmentPlan) -> dict[str, tuple[str, int, int]]:
    """accelerator name (v5e, l4) -> (kind tpu|gpu, accelerators per job unit, units in the environment)."""
    catalog = load_catalog()
    out: dict[str, tuple[str, int, int]] = {}
    for team in plan.spec.teams:
        for name in team.accelerators:
            key = accelerator_key(name, catalog)
            pools = [p for p in pool_nodes(plan, include_system=False) if key and p.plan.accelerator == key[1]]
            if not pools:
                continue
            p = pools[0]
            if p.plan.kind == "tpu":
                unit = p.plan.chips_per_node * p.slice_vms
                total = sum(q.plan.chips_per_node * q.max_nodes for q in pools)
            else:
                unit = 1
                total = sum(int(q.shape.allocatable) * q.max_nodes for q in pools)
            out[name] = (p.plan.kind, unit, max(1, total // unit))
    return out


def _diurnal_time(rng: random.Random, horizon: float, peak_hour: float) -> float:
    """A time in [0, horizon) with density proportional to 1 + cos(2 pi (hour - peak) / 24) (thinning)."""
    while True:
        t = rng.uniform(0, horizon)
        if rng.uniform(0, 2) <= 1 + math.cos(2 * math.pi * ((t / HOUR - peak_hour) / 24)):
            return t


def _bursty_times(rng: random.Random, horizon: float, n: int) -> list[float]:
    times: list[float] = []
    while len(times) < n:
        start = rng.uniform(0, horizon)
        for _ in range(min(n - len(times), rng.randint(1, 6))):
            times.append(min(horizon - 1, start + rng.uniform(0, HOUR)))
    return times


def planned_jobs(plan: EnvironmentPlan, s: Settings) -> int:
    """How many jobs ``generate`` makes for these settings (the same counts, without drawing them), so a
    run too big to simulate is refused before any work."""
    horizon = s.days * 24 * HOUR
    shapes = _shapes(plan)
    total = 0
    for team in plan.spec.teams:
        inference = "inference" in team.priority_classes
        for accel, nominal in team.accelerators.items():
            if accel not in shapes or nominal <= 0:
                continue
            _, unit, units = shapes[accel]
            target = s.load * min(nominal, unit * units) * horizon
            total += max(1, round(target / ((1.75 if inference else 6.5) * HOUR * unit)))
    return total


def generate(plan: EnvironmentPlan, s: Settings) -> list[TraceJob]:
    rng = random.Random(s.seed)
    horizon = s.days * 24 * HOUR
    shapes = _shapes(plan)
    capacity = {name: unit * units for name, (_, unit, units) in shapes.items()}
    jobs: list[TraceJob] = []
    for team in sorted(plan.spec.teams, key=lambda t: t.name):
        inference = "inference" in team.priority_classes
        for accel, nominal in sorted(team.accelerators.items()):
            if accel not in shapes or nominal <= 0:
                continue
            kind, unit, units = shapes[accel]
            target = s.load * min(nominal, capacity[accel]) * horizon  # chip-seconds
            drafts: list[tuple[float, int, float, float | None]] = []  # submit, units, duration, checkpoint
            mean = (1.75 if inference else 6.5) * HOUR * unit
            n = max(1, round(target / mean))
            times = ([_diurnal_time(rng, horizon, s.peak_hour) for _ in range(n)] if inference
                     else _bursty_times(rng, horizon, n))  # fmt: skip
            for t in times:
                size = 2 if (not inference and kind == "tpu" and units > 1 and rng.random() < 0.2) else 1
                hours = rng.uniform(0.5, 3.0) if inference else rng.uniform(1.0, 12.0)
                cp = None if inference else (HOUR if hours > 6 else HOUR / 2)
                drafts.append((t, size, hours * HOUR, cp))
            scale = target / sum(d[1] * unit * d[2] for d in drafts)
            for t, size, dur, cp in drafts:
                jobs.append(TraceJob(
                    name="", submit=float(round(t)), team=team.name, accelerator=accel,
                    duration=float(max(60, round(dur * scale / 60) * 60)),
                    chips=unit, slices=size if kind == "tpu" else 1,
                    priority="inference" if inference else None, checkpoint=cp,
                    kind=None if kind == "tpu" else "job",
                ))  # fmt: skip
            if kind == "gpu":
                jobs[-len(drafts) :] = [TraceJob(**{**j.__dict__, "slices": 1}) for j in jobs[-len(drafts) :]]
    jobs.sort(key=lambda j: (j.submit, j.team, j.accelerator))
    return [TraceJob(**{**j.__dict__, "name": f"{j.team[:12]}-{i:04d}"}) for i, j in enumerate(jobs, 1)]


def offered_load(jobs: list[TraceJob], capacity: dict[str, int], horizon: float) -> dict[str, float]:
    """Offered work / capacity per accelerator over ``horizon`` seconds."""
    work: dict[str, float] = {}
    for j in jobs:
        work[j.accelerator] = work.get(j.accelerator, 0.0) + (j.chips or 1) * j.slices * j.duration
    return {a: work.get(a, 0.0) / (c * horizon) for a, c in capacity.items() if c}


def capacity_of(plan: EnvironmentPlan) -> dict[str, int]:
    return {name: unit * units for name, (_, unit, units) in _shapes(plan).items()}
