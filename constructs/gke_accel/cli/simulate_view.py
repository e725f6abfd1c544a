"""``gke-accel simulate --env E (--trace FILE | --generate)``: a trace of jobs through the environment's
twin (real Kueue and JobSet on a local control plane), on an event-driven clock (or compressed wall time,
``--clock wall``), and what the queues made of it.
The trace format and the metrics: docs/simulate.md."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from gke_accel.cli.common import EXIT_CONFIG, EXIT_ERROR, EXIT_OK, Subcommands, add_command
from gke_accel.model import ConfigError, ConfigIssue, load_environment
from gke_accel.model.core.input_files import MAX_TRACE_JOBS, finite_in
from gke_accel.simulate import durations, events, generate, report, trace
from gke_accel.simulate.api import ApiError
from gke_accel.simulate.failures import MAX_FAILURES
from gke_accel.simulate.objects import check_trace
from gke_accel.simulate.policy import POLICIES
from gke_accel.simulate.session import CLOCKS, Options, simulate
from gke_accel.twin import TwinError


def _duration(text: str) -> float:
    seconds = durations.parse_duration(text)
    if seconds is None:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not {durations.DURATION_HELP}")
    if seconds > trace.MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is more than {trace.MAX_SHOWN}")
    return seconds


# Each number flag: (low, high, low excluded); a value outside, NaN or infinite is refused before anything runs.
BOUNDS = {
    "--days": (0.0, 366.0, True),  # a simulated year at most
    "--load": (0.0, 10.0, True),  # offered work / capacity
    "--quiet": (0.0, 60.0, True),  # wall seconds
    "--compression": (0.0, 1e6, True),  # simulated seconds per wall second
    "--node-failures": (0.0, 1000.0, False),  # per simulated day
}


def flag_problems(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every number flag finite and within its bound (BOUNDS)."""
    problems = []
    for flag, (low, high, low_open) in BOUNDS.items():
        value = getattr(args, flag[2:].replace("-", "_"))
        if not finite_in(value, low, high, low_open=low_open):
            lowest = f"above {low:g}" if low_open else f"{low:g} or more"
            problems.append((flag, f"{value!r} is not a finite number {lowest} and at most {high:g}"))
    return problems


def expected_failures(rate: float, jobs: list[trace.TraceJob], until: float | None) -> float:
    """Node failures the run would draw: ``rate`` per day over its horizon (the runner's, runner.py)."""
    if until is None:
        until = 3 * max((j.submit + j.duration for j in jobs), default=0.0) + 3600
    return rate * until / 86400


def register(sub: Subcommands) -> None:
    p = add_command(
        sub, "simulate", "run a trace of jobs through a local twin of the environment's queues",
        "gke-accel simulate --env staging --trace jobs.csv",
        "gke-accel simulate --env staging --generate --seed 7 --days 7 --policy static --json",
        "gke-accel simulate --env staging --generate --save-trace week.csv --dry-run",
        "gke-accel simulate --env staging --trace jobs.csv --clock wall --compression 300",
        details="Starts the twin (etcd, kube-apiserver, scheduler, kwok nodes, Kueue, JobSet), submits each job "
        "at its time (the virtual clock jumps from event to event once the control plane has settled; --clock "
        "wall: compressed wall time), and reports utilization, waits (re-queueing included), goodput, borrowing and "
        "lost work. Measured on the real controllers: admission, flavor, borrowing, preemption, restarts, and so "
        "every utilization, wait and goodput. Inputs, not measured: each job's run time (the trace), the "
        "checkpoint loss (work since the last checkpoint is lost), node losses (drawn at --node-failures), "
        "GKE's detection delay (5 min 50 s: 50 s node-monitor grace + 300 s default toleration, in simulated "
        "time) and the 10-minute repair. Measured on the engines: what a lost node does once detected (its "
        "NotReady condition and taint, the eviction of its pods, Kueue's and the JobSet's reaction, "
        "re-admission) and so the work lost. docs/simulate.md.",
    )  # fmt: skip
    p.add_argument("--env", required=True, help="environment name (config/<env>.yaml)")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", type=Path, help="trace file (.csv, .yaml)")
    src.add_argument("--generate", action="store_true", help="a seeded synthetic trace (--seed, --days, --load)")
    p.add_argument("--seed", type=int, default=1, help="seed of --generate and of node failures (default 1)")
    p.add_argument("--days", type=float, default=7.0, help="--generate: simulated days (default 7)")
    p.add_argument("--load", type=float, default=0.9, help="--generate: offered work / capacity (default 0.9)")
    p.add_argument("--policy", choices=POLICIES, default="cohort", help="cohort (as configured) or static")
    p.add_argument("--node-failures", type=float, default=0.0, metavar="RATE",
                   help="node losses per simulated day (an input). A lost slice or node keeps its pods Running "
                   "for GKE's detection delay (5 min 50 s simulated, an input), then stops heartbeating: the twin's "
                   "node-lifecycle and taint-eviction controllers, Kueue and JobSet react (measured); it is back "
                   "10 simulated minutes after the loss (an input)")  # fmt: skip
    p.add_argument(
        "--clock",
        choices=CLOCKS,
        default="virtual",
        help="virtual (default): jump from event to event, the control plane reacting in 0 simulated "
        "seconds; wall: simulated time = wall time x --compression",
    )
    p.add_argument(
        "--quiet",
        type=float,
        default=1.2,
        metavar="SECONDS",
        help="virtual clock: wall seconds without change before the control plane counts as settled",
    )
    p.add_argument(
        "--resolution",
        type=_duration,
        default=0.0,
        metavar="DURATION",
        help="virtual clock: apply each event at the nearest multiple of DURATION (e.g. 1h), so "
        "events close together cost one settle: faster, but simultaneous events change Kueue's "
        "decisions (docs/simulate.md); a quick look, not the numbers (default 0: exact times)",
    )
    p.add_argument("--compression", type=float, default=3600.0, help="wall clock: simulated seconds per wall second")
    p.add_argument("--until", type=_duration, help="stop at this simulated time (default: all jobs finished)")
    p.add_argument(
        "--warmup",
        type=_duration,
        default=0.0,
        metavar="DURATION",
        help="count nothing before this simulated time, so the numbers are of a cluster that is "
        "already full, not of one filling up (e.g. 1d); --generate adds it to --days (default 0)",
    )
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument("--plot", type=Path, help="write a PNG: utilization and queue depth over time")
    p.add_argument("--events", type=Path, help="write the event log (JSON lines)")
    p.add_argument("--save-trace", type=Path, help="write the trace that runs (.csv or .yaml)")
    p.add_argument("--dry-run", action="store_true", help="check (and save) the trace; start nothing")
    p.set_defaults(func=cmd_simulate)


def _write(path: Path, text: str, flag: str) -> None:
    try:
        path.write_text(text)
    except OSError as err:
        raise ConfigError([ConfigIssue(flag, f"{path}: cannot be written ({err.strerror or err})", "")]) from None


def cmd_simulate(args: argparse.Namespace) -> int:
    path = Path(args.config_dir) / f"{args.env}.yaml"
    if not path.is_file():
        raise ConfigError([ConfigIssue("--env", f"{args.env!r}: no {path}", "an environment of --config-dir")])
    problems = flag_problems(args)
    if args.until is not None and args.warmup >= args.until:
        until = durations.format_duration(args.until)
        problems.append(("--warmup", f"{durations.format_duration(args.warmup)} does not end before --until {until}"))
    if args.resolution and args.clock != "virtual":
        problems.append(("--resolution", "applies to the virtual clock only (--clock wall moves with wall time)"))
    if problems:
        raise ConfigError([ConfigIssue(flag, message, "") for flag, message in problems])
    plan = load_environment(str(path))
    if args.generate:
        settings = generate.Settings(seed=args.seed, days=args.days + args.warmup / 86400, load=args.load)
        planned = generate.planned_jobs(plan, settings)
        if planned > MAX_TRACE_JOBS:
            raise ConfigError([ConfigIssue("--days/--load", f"--days {args.days:g} at --load {args.load:g} would "
                                           f"generate about {planned} jobs", f"at most {MAX_TRACE_JOBS} jobs: "
                                           "fewer days or a lower load")])  # fmt: skip
        jobs, source = generate.generate(plan, settings), f"--generate --seed {args.seed}"
    else:
        jobs, source = trace.read_trace(args.trace), str(args.trace)
    check_trace(plan, jobs, source)
    horizon = args.until if args.until is not None else (args.days * 86400 + args.warmup if args.generate else None)
    failures = expected_failures(args.node_failures, jobs, horizon)
    if failures > MAX_FAILURES:
        raise ConfigError([ConfigIssue("--node-failures", f"{args.node_failures:g} a day over this run's "
                                       f"{durations.format_duration(round(failures / args.node_failures * 86400))} "
                                       f"draws about {failures:.0f} node failures",
                                       f"at most {MAX_FAILURES} a run: a lower rate or an earlier --until",
                                       )])  # fmt: skip
    last = max((j.submit for j in jobs), default=0.0)
    if args.warmup and args.warmup >= last:
        warmup, last_at = durations.format_duration(args.warmup), durations.format_duration(last)
        message = f"{warmup} leaves no job of {source} to measure (the last is submitted at {last_at})"
        raise ConfigError([ConfigIssue("--warmup", message, "")])
    if args.save_trace:
        text = trace.to_yaml(jobs) if args.save_trace.suffix in (".yaml", ".yml") else trace.to_csv(jobs)
        _write(args.save_trace, text, "--save-trace")
    if args.dry_run:
        print(f"{source}: {len(jobs)} jobs, valid for {args.env}")
        return EXIT_OK
    opts = Options(policy=args.policy, clock=args.clock, quiet=args.quiet, compression=args.compression,
                   node_failures=args.node_failures, warmup=args.warmup, resolution=args.resolution,
                   seed=args.seed, until=horizon)  # fmt: skip
    print(f"simulate: {len(jobs)} jobs" + (f", about {failures:.0f} node failures" if failures else ""),
          file=sys.stderr, flush=True)  # fmt: skip
    try:
        out = simulate(args.env, jobs, opts, config_dir=Path(args.config_dir),
                       on_step=lambda s: print(f"simulate: {s}", file=sys.stderr, flush=True))  # fmt: skip
    except ApiError as err:  # the run's API calls, each tried again a bounded number of times
        print(f"simulate: the twin's API server failed during the run: {err}", file=sys.stderr)
        return EXIT_ERROR
    except (TwinError, FileNotFoundError, RuntimeError, TimeoutError, OSError, subprocess.CalledProcessError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        print(f"simulate: the twin cannot start: {first[:300]}", file=sys.stderr)
        return EXIT_ERROR
    if args.events:
        _write(args.events, events.dump(out.run.events), "--events")
    if args.plot:
        try:
            report.plot(out.metrics, args.plot, f"{args.env}, policy {args.policy}, {len(jobs)} jobs")
        except report.PlotUnavailable as err:
            print(f"simulate: {err}", file=sys.stderr)
            return EXIT_CONFIG
        except OSError as err:
            why = f"{args.plot}: cannot be written ({err.strerror or err})"
            raise ConfigError([ConfigIssue("--plot", why, "")]) from None
    print(report.as_json(out.metrics, out.header) if args.json else report.text(out.metrics, out.header), end="")
    for note in out.run.notes:
        print(f"simulate: note: {note}", file=sys.stderr)
    return EXIT_OK
