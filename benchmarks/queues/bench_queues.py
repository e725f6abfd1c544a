"""``make bench-queues``: the benchmark family through the twin of staging as shipped (docs/queues.md
"Benchmark"), each scenario seeded, with its purpose:

- typical-cohort / typical-static: the typical week (``simulate.family.typical_week``, seed TYPICAL_SEED,
  a warm-up day and 7 measured ones, offered load about 80%): what sharing buys a platform team in a
  normal week: utilization, waits per team in hours, goodput. The headline.
- typical-node-loss: the typical week under cohorts with FAILURES node losses a simulated day (a whole
  TPU slice or GPU node gone for the repair time, an input): lost work per job against its interval.
- stress-cohort / stress-static: the stress week, today's overloaded trace (``--generate`` seed
  STRESS_SEED at 90% of the quotas, 93.7% of the chips measured): kept as the stress case, compared
  with the numbers published on Kueue 0.17 (results/cohort.json, static.json).
- inference-peak: training on every chip when serving's inference asks for two slices: time until it
  runs, training work lost against the checkpoint interval, when training resumes.
- day-night: training by day, serving by night on the same 32 chips, serving as one Deployment whose
  replica count follows the hour (``family.day_night``), on staging with its v5e slices in the single-host
  form (``single_host_config``: a Deployment replica is one pod; the shipped 2-VM form takes a JobSet):
  the chips each needs at its peak, chip-hours used, and the monthly cost of two pools sized for each peak
  against the one shared pool at the catalog's v5e on-demand price (the sources: 37% cheaper).

Writes benchmarks/queues/results/<scenario>.json, .events.jsonl, .png (utilization and queues) and
.holders.png (who holds the chips), and prints a Markdown table. ``--parallel N`` runs N scenarios at
once, each in its own process and twin (the runs wait on the controllers' fixed periods, not on CPU).
"""

from __future__ import annotations

import argparse
import atexit
import itertools
import json
import math
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gke_accel.catalog import load_catalog
from gke_accel.model import load_environment
from gke_accel.simulate import events, family, generate, report, trace
from gke_accel.simulate.session import Options, simulate
from gke_accel.simulate.trace import TraceJob

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CONFIG = REPO / "config"
TYPICAL_SEED, STRESS_SEED, FAILURES, DAY = 20261204, 20261202, 2.0, 86400.0


def typical() -> list[TraceJob]:
    return family.typical_week(TYPICAL_SEED)


def stress() -> list[TraceJob]:
    plan = load_environment(str(CONFIG / "staging.yaml"))
    return generate.generate(plan, generate.Settings(seed=STRESS_SEED, days=8.0, load=0.9))


# name -> (trace, policy, node losses a day, warm-up s, until s)
SCENARIOS: dict[str, tuple[Callable[[], list[TraceJob]], str, float, float, float]] = {
    "typical-cohort": (typical, "cohort", 0.0, DAY, 8 * DAY),
    "typical-static": (typical, "static", 0.0, DAY, 8 * DAY),
    "inference-peak": (family.inference_peak, "cohort", 0.0, 0.0, 24 * 3600.0),
    "day-night": (family.day_night, "cohort", 0.0, 0.0, 3 * DAY),
    "typical-node-loss": (typical, "cohort", FAILURES, DAY, 8 * DAY),
    "stress-cohort": (stress, "cohort", 0.0, DAY, 8 * DAY),
    "stress-static": (stress, "static", 0.0, DAY, 8 * DAY),
}


SHARED_POOL, SOURCES_SAVING = 32, 0.37  # staging's v5e chips; the sources' "37% cheaper" (issue #42)


def single_host_config() -> Path:
    """A config folder holding staging with its v5e 2x4 slices as single-host VMs (ct5lp-hightpu-8t): the
    same 32 chips, teams, quotas and queues; a Deployment replica can hold a whole slice."""
    folder = Path(tempfile.mkdtemp(prefix="bench-queues-single-host-"))
    atexit.register(shutil.rmtree, folder, True)
    text, n = re.subn(r"machine_type: ct5lp-hightpu-4t.*", "machine_type: ct5lp-hightpu-8t",
                      (CONFIG / "staging.yaml").read_text())  # fmt: skip
    if n != 2:
        raise SystemExit(f"bench-queues: expected staging's two v5e pools on ct5lp-hightpu-4t, found {n}")
    (folder / "staging.yaml").write_text(text)
    return folder


CONFIGS: dict[str, Callable[[], Path]] = {"day-night": single_host_config}  # default: CONFIG as shipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", type=float, default=1.2, help="virtual clock: wall seconds quiet = settled")
    parser.add_argument("--only", action="append", choices=sorted(SCENARIOS), help="run only these scenarios")
    parser.add_argument("--parallel", type=int, default=3, help="scenarios at once, each its own twin (default 3)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--until", type=float, help="end every run after this many simulated days (from t=0, "
                        "the warm-up day included) instead of the scenario's window; the results say so")  # fmt: skip
    args = parser.parse_args(argv)
    names = args.only or list(SCENARIOS)
    if args.until is not None:
        early = [n for n in names if not (math.isfinite(args.until) and args.until * DAY > SCENARIOS[n][3])]
        if early:
            parser.error(f"--until {args.until}: ends at or before the warm-up of {', '.join(early)}: nothing to "
                         "measure; valid: more days than the warm-up (typical, stress: more than 1)")  # fmt: skip
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a kill stops the twins by PID, like Ctrl-C
    args.out.mkdir(parents=True, exist_ok=True)
    if len(names) > 1 and args.parallel > 1:
        return fan_out(names, args)
    for name in names:
        run_one(name, args.out, args.quiet, args.until)
    print(table(args.out))
    return 0


def fan_out(names: list[str], args: argparse.Namespace) -> int:
    """Each scenario in a child process (``--only NAME``), at most ``--parallel`` at once."""
    waiting, failed = list(names), []
    running: dict[str, subprocess.Popen[bytes]] = {}
    try:
        while waiting or running:
            while waiting and len(running) < args.parallel:
                name = waiting.pop(0)
                cmd = [sys.executable, __file__, "--only", name, "--out", str(args.out), "--quiet", str(args.quiet)]
                cmd += ["--until", str(args.until)] if args.until is not None else []
                running[name] = subprocess.Popen(cmd)
            for name, proc in list(running.items()):
                if proc.poll() is not None:
                    running.pop(name)
                    if proc.returncode:
                        failed.append(name)
            time.sleep(1)
    except KeyboardInterrupt:
        for proc in running.values():
            proc.send_signal(signal.SIGTERM)  # each child stops its own twin by PID (SIGINT may be ignored)
        for proc in running.values():
            proc.wait()
        raise
    print(table(args.out))
    if failed:
        print(f"bench-queues: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


@dataclass(frozen=True)
class Window:
    """What one run measures: ``[warmup, until)`` in seconds, the jobs submitted in it, the load they offer
    over it, and ``cut_short_at_day`` (``--until``) only when that ends the run before the scenario's window."""

    warmup: float
    until: float
    measured: list[TraceJob]
    offered_load: dict[str, float]
    cut_short_at_day: float | None


def window(jobs: list[TraceJob], capacity: dict[str, int], warmup: float, until: float,
           until_days: float | None) -> Window:  # fmt: skip
    cut = until_days is not None and until_days * DAY < until
    until = until_days * DAY if until_days is not None and cut else until
    if not until > warmup:
        raise ValueError(f"the window [{warmup / DAY:g} d, {until / DAY:g} d) is empty: --until ends in the warm-up")
    measured = [j for j in jobs if warmup <= j.submit < until]
    load = generate.offered_load(measured, capacity, until - warmup)
    return Window(warmup, until, measured, load, until / DAY if cut else None)


def run_one(name: str, out: Path, quiet: float, until_days: float | None = None) -> None:
    build, policy, rate, warmup, until = SCENARIOS[name]
    jobs = build()
    config = CONFIGS.get(name, lambda: CONFIG)()
    plan = load_environment(str(config / "staging.yaml"))
    (out / f"{name}.trace.csv").write_text(trace.to_csv(jobs))
    win = window(jobs, generate.capacity_of(plan), warmup, until, until_days)
    until, measured, load = win.until, win.measured, win.offered_load
    print(f"{name}: {len(jobs)} jobs, {len(measured)} measured, offered load "
          f"{', '.join(f'{a} {v:.1%}' for a, v in load.items())}", flush=True)  # fmt: skip
    started = time.monotonic()
    opts = Options(policy=policy, quiet=quiet, node_failures=rate, seed=TYPICAL_SEED, until=until, warmup=warmup)
    res = simulate("staging", jobs, opts, config_dir=config, on_tick=Progress(name, started),
                   on_step=lambda s: print(f"  {name}: {s}", flush=True))  # fmt: skip
    header = {**res.header, "scenario": name, "offered_load": load,
              "total_wall_seconds": round(time.monotonic() - started, 1),
              **({"cut_short_at_day": win.cut_short_at_day} if win.cut_short_at_day is not None else {}),
              "timing": {k: round(v, 1) for k, v in res.run.timing.items()}, "notes": res.run.notes,
              **extra(name, res.run.events, res.metrics.as_dict())}  # fmt: skip
    (out / f"{name}.json").write_text(report.as_json(res.metrics, header))
    (out / f"{name}.events.jsonl").write_text(events.dump(res.run.events))
    title = f"staging {name}: {len(jobs)} jobs"
    report.plot(res.metrics, out / f"{name}.png", title)
    report.plot_holders(res.metrics, out / f"{name}.holders.png", title)
    print(report.text(res.metrics, header), flush=True)


def extra(name: str, log: list[events.Event], metrics: dict[str, object]) -> dict[str, object]:
    """The scenario's own numbers from its event log (inference peak, day/night)."""
    if name == "day-night":
        return {"day_night": day_night(log, SCENARIOS[name][4] / 3600)}
    if name == "inference-peak":
        return {"inference_peak": inference_peak(log)}
    return {}


def running_chips(log: list[events.Event]) -> list[tuple[float, dict[str, int]]]:
    """(t, team -> chips of Running pods from t on), one entry per event time."""
    by_job: dict[str, tuple[str, int]] = {}
    out: list[tuple[float, dict[str, int]]] = []
    for e in sorted(log, key=lambda e: e.t):
        if e.type == "running":
            by_job[e.job] = (e.team, e.chips)
        elif e.type in ("evicted", "finished"):
            by_job.pop(e.job, None)
        teams: dict[str, int] = {}
        for team, chips in by_job.values():
            teams[team] = teams.get(team, 0) + chips
        if out and out[-1][0] == e.t:
            out[-1] = (e.t, teams)
        else:
            out.append((e.t, teams))
    return out


def day_night(log: list[events.Event], window_h: float = 3 * 24.0) -> dict[str, object]:
    """Peak chips of training (nlp, research) and of serving (its Deployment's replicas), chip-hours used
    over ``window_h``, and the monthly cost of two pools sized for each peak against one shared pool of
    SHARED_POOL chips, at the catalog's v5e on-demand price, beside the sources' saving."""
    end = window_h * 3600
    series = [p for p in running_chips(log) if p[0] < end]
    train = max((c.get("nlp", 0) + c.get("research", 0) for _, c in series), default=0)
    serve = max((c.get("serving", 0) for _, c in series), default=0)
    both = max((sum(c.values()) for _, c in series), default=0)
    used = 0.0
    for (t0, c), (t1, _) in itertools.pairwise([*series, (end, {})]):
        used += sum(c.values()) * (t1 - t0) / 3600  # to the window's end: what still runs then counts until then
    prices = load_catalog().prices
    month = prices.tpu_per_chip_hour["v5e"].on_demand * prices.hours_per_month  # USD per chip and month
    separate = train + serve
    return {"peak_training_chips": train, "peak_serving_chips": serve, "peak_both_chips": both,
            "shared_pool_chips": SHARED_POOL, "separate_pools_chips": separate, "chip_hours_used": round(used, 1),
            "used_share_of_shared_pool": round(used / (SHARED_POOL * window_h), 3) if window_h else 0.0,
            "v5e_on_demand_usd_per_chip_hour": prices.tpu_per_chip_hour["v5e"].on_demand,
            "monthly_usd_shared": round(SHARED_POOL * month), "monthly_usd_separate": round(separate * month),
            "saving_vs_separate": round(1 - SHARED_POOL / separate, 3) if separate else 0.0,
            "sources_saving": SOURCES_SAVING}  # fmt: skip


def inference_peak(log: list[events.Event]) -> dict[str, object]:
    peak = min((e.t for e in log if e.team == "serving" and e.type == "submitted" and e.t > 0), default=0.0)
    runs = [e.t for e in log if e.team == "serving" and e.type == "running" and e.chips and e.t >= peak]
    evicted = [e for e in log if e.type == "evicted" and e.t >= peak]
    resumed = {}
    for ev in evicted:
        again = [e.t for e in log if e.job == ev.job and e.type == "running" and e.chips and e.t > ev.t]
        resumed[ev.job] = round((min(again) - peak) / 3600, 2) if again else None
    return {"peak_at_h": peak / 3600, "inference_running_after_s": (min(runs) - peak) if runs else None,
            "training_evicted": [{"job": e.job, "team": e.team, "lost_min": round(e.lost / 60, 1),
                                  "resumed_after_peak_start_h": resumed[e.job]} for e in evicted]}  # fmt: skip


class Progress:
    """Prints a line as the run enters each simulated day: how long the days took."""

    def __init__(self, name: str, started: float) -> None:
        self.name, self.started, self.day = name, started, 0

    def __call__(self, now: float) -> None:
        if now >= (self.day + 1) * DAY:
            self.day = int(now // DAY)
            print(f"  {self.name}: day {self.day} reached after {time.monotonic() - self.started:.0f} s", flush=True)


def table(out: Path) -> str:
    rows = [
        "| scenario | TPU util | GPU util | wait p50 / p95 h (nlp, research, serving) | goodput (nlp, research, "
        "serving) | preempted | lost chip-h | wall s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in SCENARIOS:
        path = out / f"{name}.json"
        if not path.is_file():
            continue
        d = json.loads(path.read_text())
        teams = d["teams"]
        waits = ", ".join(f"{teams[t]['wait_p50_h']:.1f} / {teams[t]['wait_p95_h']:.1f}"
                          + (f" (worst of {teams[t]['waits_n']})" if teams[t].get("wait_p95_is_max") else "")
                          for t in ("nlp", "research", "serving"))  # fmt: skip
        good = ", ".join(f"{teams[t].get('goodput', 0):.0%}" for t in ("nlp", "research", "serving"))
        pre = sum(t["preempted"] for t in teams.values())
        lost = sum(t["lost_chip_h"] for t in teams.values())
        u = d["utilization_by_resource"]
        rows.append(f"| {name} | {u.get('google.com/tpu', 0):.1%} | {u.get('nvidia.com/gpu', 0):.1%} | {waits} | "
                    f"{good} | {pre} | {lost:.1f} | {d['total_wall_seconds']} |")  # fmt: skip
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
