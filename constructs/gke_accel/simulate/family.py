"""The benchmark family's traces (``make bench-queues``, docs/queues.md), each seeded, on staging's teams.

- ``typical_week``: what a platform team would recognise. Offered load about ``load`` of the chips (not
  more: waits stay in hours). Each team is bursty at its own times: nlp trains on weekdays 09-19 h, research
  at night (20-06 h) and at weekends, serving trains by day and serves (``inference``) in the evening peak
  (18-24 h). Jobs of one or two 8-chip v5e slices (two only for a team whose nominal quota holds two,
  so a static baseline never carries a job it can never run) and one L4 GPU (a pod per node); 1-12 h of work
  (inference 1-3 h); checkpoints every hour. Submissions and durations are whole multiples of ``grid``
  (default 1 h: jobs come from hourly pipelines and schedulers): the simulation of the trace is exact,
  and events that fall on one hour cost one settle.
- ``inference_peak``: every TPU chip trains (nlp its 16, research its 8 and 8 borrowed from idle serving, in
  jobs that checkpoint every ``checkpoint``), then serving's inference asks for two slices at once: how long
  until it runs, the training work lost against the checkpoint interval, when training resumes.
- ``day_night``: training by day (08-20 h: nlp and research), serving by night (20-08 h) on the same 32
  chips: one model-server Deployment (``kind: deployment``) whose replica count follows the night's hours,
  a replica a whole 8-chip slice. A Deployment replica is one pod, so it needs the single-host form of a
  2x4 slice (ct5lp-hightpu-8t); staging ships the 2-VM form, which only a JobSet can use
  (benchmarks/queues runs this scenario on staging with that one change), and on single-host slices a
  job is one slice: nlp trains as two one-slice jobs.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from gke_accel.simulate.trace import TraceJob

HOUR, DAY = 3600.0, 86400.0


def _hour_of_week(t: float) -> tuple[int, int]:
    """(day of week 0-6, the trace starting on a Monday 00:00; hour 0-23)."""
    return int(t // DAY) % 7, int(t % DAY // HOUR)


def _times(rng: random.Random, n: int, horizon: float, weight: Callable[[float], float], grid: float) -> list[float]:
    """``n`` times in [0, horizon) with density proportional to ``weight`` (thinning), on ``grid``."""
    out: list[float] = []
    while len(out) < n:
        t = rng.uniform(0, horizon)
        if rng.random() < weight(t):
            out.append(float(int(t // grid) * grid))
    return out


def nlp_hours(t: float) -> float:
    day, hour = _hour_of_week(t)
    return 1.0 if day < 5 and 9 <= hour < 19 else 0.05


def research_hours(t: float) -> float:
    day, hour = _hour_of_week(t)
    return 1.0 if day >= 5 or hour >= 20 or hour < 6 else 0.1


def serving_train_hours(t: float) -> float:
    day, hour = _hour_of_week(t)
    return 1.0 if day < 5 and 8 <= hour < 17 else 0.05


def serving_peak_hours(t: float) -> float:
    _, hour = _hour_of_week(t)
    return 1.0 if hour >= 18 else 0.1


# staging's teams (config/staging.yaml; tests/simulate/test_sim_family.py holds the offered load to them):
# team, accelerator, nominal chips, weight, chips of one unit, units a job may take, hours (min, max),
# priority (None: the team's default, training)
STREAMS = (
    ("nlp", "v5e", 16, nlp_hours, 8, (1, 2), (1, 12), None),
    ("nlp", "l4", 1, nlp_hours, 1, (1, 1), (1, 12), None),
    ("research", "v5e", 8, research_hours, 8, (1, 1), (1, 12), None),
    ("serving", "v5e", 8, serving_train_hours, 8, (1, 1), (1, 8), "training"),
    ("serving", "l4", 4, serving_peak_hours, 1, (1, 1), (1, 3), "inference"),
)


def typical_week(seed: int, days: float = 8.0, load: float = 0.8, grid: float = HOUR) -> list[TraceJob]:
    """The typical week (module doc) over ``days`` (a warm-up day and 7 measured ones by default)."""
    rng = random.Random(seed)
    horizon = days * DAY
    jobs: list[TraceJob] = []
    for team, accel, nominal, weight, unit, units, (lo, hi), priority in STREAMS:
        target = load * nominal * horizon  # chip-seconds this stream offers
        drafts: list[tuple[float, int, float]] = []
        work = 0.0
        while work < target:
            t = _times(rng, 1, horizon, weight, grid)[0]
            size = rng.randint(*units) if nominal >= 2 * unit else 1
            hours = max(1, round(rng.uniform(lo, hi) * HOUR / grid)) * grid
            drafts.append((t, size, hours))
            work += size * unit * hours
        for t, size, dur in drafts:
            tpu = accel == "v5e"
            jobs.append(TraceJob(name="", submit=t, team=team, accelerator=accel, duration=dur,
                                 chips=unit if tpu else size, slices=size if tpu else 1, priority=priority,
                                 checkpoint=None if priority == "inference" else grid,
                                 kind=None if tpu else "job"))  # fmt: skip
    return _named(jobs)


def inference_peak(checkpoint: float = 1800.0, peak_at: float = 5 * HOUR + 20 * 60) -> list[TraceJob]:
    """Training on all 32 chips from 0: nlp's two slices (its nominal 16) and research's two (its nominal 8
    and 8 borrowed from serving, which is idle); at ``peak_at`` (not a multiple of the checkpoint interval)
    serving's inference asks for two one-slice jobs of 3 h."""
    jobs = [TraceJob(name="", submit=0.0, team=team, accelerator="v5e", duration=12 * HOUR, chips=8, slices=2,
                     checkpoint=checkpoint) for team in ("nlp", "research")]  # fmt: skip
    jobs += [TraceJob(name="", submit=peak_at, team="serving", accelerator="v5e", duration=3 * HOUR, chips=8,
                      slices=1, priority="inference", checkpoint=None) for _ in range(2)]  # fmt: skip
    return _named(jobs)


NIGHT_SLICES = (1, 2, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1)  # serving's replicas (8-chip slices) in the hours from 20 h


def day_night(days: int = 3, night_slices: tuple[int, ...] = NIGHT_SLICES) -> list[TraceJob]:
    """Training 08-20 h by nlp (two one-slice jobs) and research (one) each day; serving's Deployment
    ``serving-night`` at ``night_slices[i]`` replicas of one slice in the night's i-th hour from 20 h, a
    row where the count changes, scaled to 0 after the night."""
    jobs: list[TraceJob] = []
    for d in range(days):
        day = d * DAY
        for team in ("nlp", "nlp", "research"):
            jobs.append(TraceJob(name="", submit=day + 8 * HOUR, team=team, accelerator="v5e", duration=12 * HOUR,
                                 chips=8, slices=1, kind="job", checkpoint=HOUR))  # fmt: skip
    jobs = _named(jobs)
    for d in range(days):
        before = 0
        for i, n in enumerate((*night_slices, 0)):
            if n != before:
                jobs.append(TraceJob(name="serving-night", submit=d * DAY + (20 + i) * HOUR, team="serving",
                                     accelerator="v5e", duration=0.0, chips=8, kind="deployment",
                                     priority="inference", replicas=n))  # fmt: skip
            before = n
    return sorted(jobs, key=lambda j: (j.submit, j.name))


def _named(jobs: list[TraceJob]) -> list[TraceJob]:
    jobs.sort(key=lambda j: (j.submit, j.team, j.accelerator, -j.duration))
    return [TraceJob(**{**j.__dict__, "name": f"{j.team[:12]}-{i:04d}"}) for i, j in enumerate(jobs, 1)]
