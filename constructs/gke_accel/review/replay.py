"""The queue replay of a review: when a pull request changes what shapes admission (``admission.py``),
the environment's standard trace runs through the twin (``gke_accel.simulate``: the real kube-apiserver,
Kueue and JobSet) with the base's config twice and the head's once, and the review says per team what
changes (``replay_delta.py``).

The standard trace is ``simulate.generate`` on the BASE's plan with fixed settings (``ReplaySettings``:
seed 1, load 0.9, ``hours`` of trace): the same base always gives the same jobs, and base and head see the
same jobs, so a difference is the head's doing. A job the head's config refuses (its team or accelerator
gone) is not submitted on the head; its class is reported as no longer admitted, with the reason.

The replay is skipped (and the section says why; the rest of the review is unchanged) when the twin's
binaries are missing, when the environment has no Kueue queues, when a config does not load with the
head's code, or when the time budget runs out (``budget`` wall seconds for all environments, checked at
every step of the virtual clock).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .admission import AdmissionChange, admission_changes, admission_objects
from .replay_delta import (
    Cell,
    admitted_classes,
    floors,
    held_chip_hours,
    job_class,
    lost_classes,
    team_cells,
    team_numbers,
)

MODES = ("auto", "always", "never")


@dataclass(frozen=True)
class ReplaySettings:
    mode: str = "auto"  # auto: when admission changes; always: every environment with queues; never
    hours: float = 12.0  # of standard trace (and the window measured): docs/review.md, measured
    budget: float = 600.0  # wall seconds for every replay of the review
    seed: int = 1
    load: float = 0.9
    resolution: float = 3600.0  # simulated seconds between the virtual clock's steps (docs/simulate.md)
    parallel: bool = True  # the three runs at once (the time is waiting on controllers, not CPU)


@dataclass
class ReplaySection:
    env: str
    status: str  # replayed | skipped | not needed
    reason: str = ""
    changes: tuple[AdmissionChange, ...] = ()
    trace: dict[str, Any] = field(default_factory=dict)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)  # team -> metric -> cell
    lost: dict[str, str] = field(default_factory=dict)  # job class -> why
    runs: list[dict[str, Any]] = field(default_factory=list)  # side, wall seconds, notes

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "admission_changes": [{"object": c.key, "action": c.action} for c in self.changes],
            "trace": self.trace,
            "teams": {t: {m: c.as_dict() for m, c in cells.items()} for t, cells in self.cells.items()},
            "no_longer_admitted": self.lost,
            "runs": self.runs,
        }


class BudgetSpent(RuntimeError):
    pass


def standard_trace(plan: Any, s: ReplaySettings) -> list[Any]:
    from gke_accel.simulate.generate import Settings, generate

    return generate(plan, Settings(seed=s.seed, days=s.hours / 24, load=s.load))


def classes_of(jobs: list[Any]) -> dict[str, str]:
    return {j.name: job_class(j.team, j.accelerator, j.chips, j.slices, j.priority) for j in jobs}


def refused_on(plan: Any, jobs: list[Any]) -> tuple[list[Any], dict[str, str]]:
    """The jobs ``plan`` can make, and the classes of those it refuses with its first reason."""
    from gke_accel.model import ConfigError
    from gke_accel.simulate.objects import submission

    kept: list[Any] = []
    refused: dict[str, str] = {}
    for job in jobs:
        try:
            submission(plan, job, job.duration)
            kept.append(job)
        except ConfigError as err:
            issue = err.issues[0]
            cls = job_class(job.team, job.accelerator, job.chips, job.slices, job.priority)
            refused.setdefault(cls, f"the head's config refuses it: {issue.path}: {issue.message}"[:300])
    return kept, refused


def tools_missing() -> str:
    """Why the twin cannot run here ("" when it can)."""
    from gke_accel.model.queues.install import JOBSET, KUEUE
    from gke_accel.twin.local_twin import MissingTools, check_controllers, check_tools

    try:
        check_tools()
        check_controllers({KUEUE.chart: {}, JOBSET.chart: {}})
    except MissingTools as err:
        return str(err)
    return ""


Run = Callable[[str, list[Any], Path, float], dict[str, Any]]


def run_twin(env: str, jobs: list[Any], config_dir: Path, deadline: float, s: ReplaySettings) -> dict[str, Any]:
    """One replay through ``gke_accel.simulate`` (public entry point); the numbers ``replay_delta`` needs."""
    from gke_accel.simulate.session import Options, simulate

    def tick(_now: float) -> None:
        if time.monotonic() > deadline:
            raise BudgetSpent("the time budget ran out")

    horizon = s.hours * 3600
    opts = Options(resolution=s.resolution, until=horizon, seed=s.seed)
    # a folder of our own: simulate keeps the one it makes after a run that did not end well (its logs),
    # and a replay cut by the budget is no failure to keep 80 MB for
    state = Path(tempfile.mkdtemp(prefix=f"gke-accel-replay-{env}-"))
    try:
        out = simulate(env, jobs, opts, config_dir=config_dir, state=state, on_tick=tick)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    summaries = {t: st.summary() for t, st in out.metrics.teams.items()}
    return {
        "numbers": team_numbers(summaries, held_chip_hours(out.run.events, horizon), out.nominal, s.hours),
        "events": out.run.events,
        "nominal": {t: sum(f.values()) for t, f in out.nominal.items()},
        "wall_s": round(out.run.wall, 1),
        "startup_s": round(out.startup_wall, 1),
        "notes": list(out.run.notes),
    }


def replay_environment(
    env: str,
    base_plan: Any,
    head_plan: Any,
    base_config: Path,
    head_config: Path,
    s: ReplaySettings,
    deadline: float,
    run: Run | None = None,
) -> ReplaySection:
    """Base twice and head once on the standard trace; the section with every cell."""
    go: Run = run or (lambda e, j, c, d: run_twin(e, j, c, d, s))
    jobs = standard_trace(base_plan, s)
    head_jobs, refused = refused_on(head_plan, jobs)
    section = ReplaySection(env, "replayed")
    section.trace = {"source": f"simulate --generate --seed {s.seed} --load {s.load:g} on the base's plan",
                     "hours": s.hours, "jobs": len(jobs), "head_jobs": len(head_jobs),
                     "resolution_min": s.resolution / 60}  # fmt: skip
    sides = [("base", jobs, base_config), ("base", jobs, base_config), ("head", head_jobs, head_config)]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=3 if s.parallel else 1) as pool:
        futures = [pool.submit(go, env, j, c, deadline) for _, j, c in sides]
        results = []
        for (side, _, _), fut in zip(sides, futures, strict=True):
            try:
                results.append(fut.result())
            except BudgetSpent:
                spent = time.monotonic() - started
                return ReplaySection(env, "skipped", f"the replay's time budget ran out ({spent:.0f} s spent)")
            except Exception as err:
                first = (str(err).strip().splitlines() or [type(err).__name__])[0][:300]
                return ReplaySection(env, "skipped", f"the twin failed on the {side} replay: {first}")
    section.runs = [{"side": side, "wall_s": r["wall_s"], "startup_s": r["startup_s"], "notes": r["notes"]}
                    for (side, _, _), r in zip(sides, results, strict=True)]  # fmt: skip
    section.trace["wall_s"] = round(time.monotonic() - started, 1)
    largest = max(((j.chips or 1) * j.slices for j in jobs), default=1)
    nominal = results[0].get("nominal", {})
    team_floors = {t: floors(largest, s.resolution / 3600, nominal.get(t, 0), s.hours) for t in nominal}
    section.trace["largest_job_chips"] = largest
    section.cells = team_cells((results[0]["numbers"], results[1]["numbers"]), results[2]["numbers"], team_floors)
    classes = classes_of(jobs)
    base_admitted = [admitted_classes(classes, r["events"]) for r in results[:2]]
    section.lost = lost_classes(classes.values(), base_admitted, admitted_classes(classes, results[2]["events"]),
                                refused)  # fmt: skip
    return section


def add_replay(
    review: Any,
    base_config: Path,
    head_config: Path,
    stacks: tuple[Mapping[str, Any], Mapping[str, Any]],
    s: ReplaySettings,
    names: list[str] | None = None,
    run: Run | None = None,
) -> None:
    """Set ``stack.replay`` on each environment compared on both sides (``stacks``: base's and head's
    synthesized JSON per environment)."""
    from .workloads import load_plans

    if s.mode == "never":
        return
    base_plans, _ = load_plans(base_config, names)
    head_plans, _ = load_plans(head_config, names)
    deadline = time.monotonic() + s.budget
    missing: str | None = None
    for stack in review.stacks:
        env = stack.name
        if stack.status in ("added", "removed", "error"):
            continue
        bp, hp = base_plans.get(env), head_plans.get(env)
        if bp is None or hp is None:
            side = "base" if bp is None else "head"
            stack.replay = ReplaySection(env, "skipped", f"the {side}'s config does not load with the head's code")
            continue
        changes = tuple(admission_changes(admission_objects(bp, stacks[0].get(env)),
                                          admission_objects(hp, stacks[1].get(env))))  # fmt: skip
        if not changes and s.mode == "auto":
            stack.replay = ReplaySection(env, "not needed", "no object that shapes admission changed")
            continue
        if bp.queues is None or hp.queues is None:
            why = "no Kueue queues in this environment (base or head): nothing decides admission to replay"
            stack.replay = ReplaySection(env, "skipped", why, changes)
            continue
        if missing is None:
            missing = tools_missing() if run is None else ""
        if missing:
            stack.replay = ReplaySection(env, "skipped", f"the twin's binaries are missing: {missing}", changes)
            continue
        if time.monotonic() > deadline:
            stack.replay = ReplaySection(env, "skipped", f"the time budget ({s.budget:.0f} s) was spent", changes)
            continue
        section = replay_environment(env, bp, hp, base_config, head_config, s, deadline, run)
        section.changes = changes
        stack.replay = section
