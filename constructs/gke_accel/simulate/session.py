"""One simulation: the environment's twin up, the policy applied, the trace run, the metrics computed,
the twin stopped (by PID, on every exit path). A state directory it made itself is removed after a run
that ended well, and kept after one that did not (its logs say why), with a line naming it."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gke_accel.model import EnvironmentPlan
from gke_accel.simulate import metrics
from gke_accel.simulate.api import Api
from gke_accel.simulate.durations import format_duration
from gke_accel.simulate.policy import beyond_nominal, flavor_capacity, nominal_quotas
from gke_accel.simulate.runner import KUEUE, Runner, RunResult, apply_policy
from gke_accel.simulate.trace import TraceJob
from gke_accel.simulate.virtual import VirtualRunner
from gke_accel.workloads.lint.team import teams_by_namespace

CLOCKS = ("virtual", "wall")


@dataclass(frozen=True)
class Options:
    policy: str = "cohort"
    clock: str = "virtual"  # virtual: event-driven (simulate/virtual.py); wall: compressed wall time
    quiet: float = 1.2  # virtual: wall seconds without change before the control plane counts as settled
    resolution: float = 0.0  # virtual: simulated seconds between steps (each event at the nearest); 0: exact
    compression: float = 3600.0  # wall: simulated seconds per wall second
    node_failures: float = 0.0  # per simulated day
    seed: int = 1
    until: float | None = None  # simulated seconds; default: until every job finished
    warmup: float = 0.0  # simulated seconds at the start that no number counts (metrics.compute ``start``)
    tick: float = 0.25  # wall: wall seconds between polls (virtual: 0.15 while settling)


@dataclass
class Outcome:
    metrics: metrics.Metrics
    run: RunResult
    header: dict[str, Any]
    capacity: dict[str, int]
    nominal: dict[str, dict[str, int]]
    cluster_queues: list[dict[str, Any]]
    startup_wall: float


def trace_window(jobs: Sequence[TraceJob]) -> float:
    """The utilization window's end without ``until``: the latest submit + duration of the trace, the
    earliest its work could all be done. It depends on the trace only, so two policies run on one trace
    are divided by one window (each run's own makespan would favour the policy that finishes later)."""
    return max((j.submit + j.duration for j in jobs), default=0.0)


def start_twin(env: str, state: Path, config_dir: Path, on_step: Callable[[str], None]) -> Any:
    """The twin (``gke_accel.twin.Twin``): running, with ``.kubeconfig``, ``.plan`` and ``stop()``; raises
    ``TwinError`` (one line for the user, e.g. the binaries to build) when it cannot start. Its
    controller-manager runs the node-lifecycle chain with short wall-clock delays (twin/lifecycle.py)."""
    from gke_accel.twin import Twin
    from gke_accel.twin.lifecycle import SIMULATE

    return Twin.start(env, state, config_dir=config_dir, on_step=on_step, lifecycle=SIMULATE)


def simulate(
    env: str,
    jobs: Sequence[TraceJob],
    opts: Options,
    *,
    config_dir: Path,
    state: Path | None = None,
    on_step: Callable[[str], None] = lambda _: None,
    on_tick: Callable[[float], None] | None = None,
    plan: EnvironmentPlan | None = None,
) -> Outcome:
    with _state_folder(env, state, on_step) as folder:
        return _simulate(env, jobs, opts, config_dir=config_dir, state=folder, on_step=on_step, on_tick=on_tick,
                         plan=plan)  # fmt: skip


@contextmanager
def _state_folder(env: str, state: Path | None, on_step: Callable[[str], None]) -> Iterator[Path]:
    """``state``, or a new folder that is removed if the run ends well and kept (and named) if not."""
    if state is not None:
        yield state
        return
    made = Path(tempfile.mkdtemp(prefix=f"gke-accel-simulate-{env}-"))
    try:
        yield made
    except BaseException:
        on_step(f"the twin's state and logs are kept in {made}")
        raise
    shutil.rmtree(made, ignore_errors=True)


def _simulate(
    env: str,
    jobs: Sequence[TraceJob],
    opts: Options,
    *,
    config_dir: Path,
    state: Path,
    on_step: Callable[[str], None],
    on_tick: Callable[[float], None] | None,
    plan: EnvironmentPlan | None,
) -> Outcome:
    started = time.monotonic()
    twin = start_twin(env, state, config_dir, on_step)
    api: Api | None = None
    try:
        api = Api(Path(twin.kubeconfig))
        plan = plan or twin.plan
        assert plan is not None
        on_step(f"policy {opts.policy}")
        apply_policy(api, opts.policy)
        cqs = api.items(f"{KUEUE}/clusterqueues")
        team_of = {ns: t.name for ns, t in teams_by_namespace(plan).items()}
        nominal = nominal_quotas(cqs, team_of)
        capacity, resource_of = flavor_capacity(api.items(f"{KUEUE}/resourceflavors"), api.items("/api/v1/nodes"))
        startup = time.monotonic() - started
        runner: Runner
        if opts.clock == "wall":
            on_step(f"running {len(jobs)} jobs at {opts.compression:g} simulated seconds per second")
            runner = Runner(
                api, plan, jobs, compression=opts.compression, tick=opts.tick,
                node_failures=opts.node_failures, seed=opts.seed, until=opts.until, on_tick=on_tick,
            )  # fmt: skip
        else:
            steps = f", in steps of {format_duration(opts.resolution)}" if opts.resolution else ""
            on_step(f"running {len(jobs)} jobs on the virtual clock (settled after {opts.quiet:g} s quiet{steps})")
            runner = VirtualRunner(api, plan, jobs, quiet=opts.quiet, node_failures=opts.node_failures,
                                   seed=opts.seed, until=opts.until, resolution=opts.resolution,
                                   on_tick=on_tick)  # fmt: skip
        if opts.policy == "static":
            held = [(st.sub.job.name, st.sub.job.team, st.sub.chips, st.sub.resource) for st in runner.jobs.values()]
            never = beyond_nominal(held, nominal, resource_of)
            if never:
                runner.notes.append(f"policy static: {len(never)} jobs need more chips than their team's nominal "
                                    f"quota and can never be admitted; each waits to the end: {', '.join(never[:5])}"
                                    + (", ..." if len(never) > 5 else ""))  # fmt: skip
        result = runner.run()
        horizon = opts.until if opts.until is not None else trace_window(jobs)
        m = metrics.compute(result.events, horizon=horizon, capacity=capacity, resource_of=resource_of,
                            nominal=nominal, start=opts.warmup)  # fmt: skip
    finally:
        if api is not None:  # its scratch folder (certificates) goes on every exit path, Ctrl-C included
            api.close()
        twin.stop()
    clock = ({"compression": opts.compression} if opts.clock == "wall"
             else {"quiet_seconds": opts.quiet, "resolution_min": opts.resolution / 60})  # fmt: skip
    header = {"environment": env, "policy": opts.policy, "jobs": len(jobs), "clock": opts.clock, **clock,
              "node_failures_per_day": opts.node_failures, "seed": opts.seed,
              "wall_seconds": round(result.wall, 1), "startup_seconds": round(startup, 1)}  # fmt: skip
    return Outcome(m, result, header, capacity, nominal, cqs, startup)
