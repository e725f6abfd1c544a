"""``make bench-queues``: a published week of work through the twin of staging, Kueue cohorts vs static
quotas, node failures off and on (docs/queues.md "Benchmark: what sharing buys").

The trace: ``gke-accel simulate --generate`` with SEED over a warm-up day and then 7 measured days at
90% offered load (written to <out>/trace.csv; ``--warmup 1d --days 7``): the week is measured on a
cluster that is already busy, as a real week follows the last one, not on one filling up.
Scenarios (each on a fresh twin of config/staging.yaml as shipped; its teams' cpu/memory quotas are
derived from the chips they may hold, so chips, not cpu, bind): cohort / static / cohort-failures:
policy cohort or static, node failures 0 or FAILURES per simulated day.
Writes benchmarks/queues/results/<scenario>.json, .png and .events.jsonl and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

from gke_accel.model import load_environment
from gke_accel.simulate import events, generate, report, trace
from gke_accel.simulate.session import Options, simulate

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SEED, DAYS, WARMUP, LOAD, FAILURES, RESOLUTION = 20261202, 7.0, 1.0, 0.9, 2.0, 0.0
CONFIG = REPO / "config"
SCENARIOS = {
    "cohort": (CONFIG, "cohort", 0.0),
    "static": (CONFIG, "static", 0.0),
    "cohort-failures": (CONFIG, "cohort", FAILURES),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clock", choices=("virtual", "wall"), default="virtual", help="default virtual")
    parser.add_argument("--quiet", type=float, default=1.2, help="virtual clock: wall seconds quiet = settled")
    parser.add_argument("--compression", type=float, default=1800.0, help="wall clock: simulated s per wall s")
    parser.add_argument("--resolution", type=float, default=RESOLUTION,
                        help=f"virtual clock: simulated minutes a step, 0 exact (default {RESOLUTION:g})")  # fmt: skip
    parser.add_argument("--only", action="append", choices=sorted(SCENARIOS), help="run only these scenarios")
    parser.add_argument("--days", type=float, default=DAYS, help="simulated days measured (default 7)")
    parser.add_argument("--warmup", type=float, default=WARMUP, help="simulated days before them (default 1)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a kill stops the twin by PID, like Ctrl-C
    args.out.mkdir(parents=True, exist_ok=True)
    plan = load_environment(str(CONFIG / "staging.yaml"))
    days, warmup_s = args.days, args.warmup * 86400
    jobs = generate.generate(plan, generate.Settings(seed=SEED, days=days + args.warmup, load=LOAD))
    (args.out / "trace.csv").write_text(trace.to_csv(jobs))
    measured = [j for j in jobs if j.submit >= warmup_s]
    load = generate.offered_load(measured, generate.capacity_of(plan), days * 86400)
    print(f"trace: {len(jobs)} jobs, {len(measured)} after the warm-up, seed {SEED}, offered load {load}",
          flush=True)  # fmt: skip
    for name in args.only or list(SCENARIOS):
        config_dir, policy, rate = SCENARIOS[name]
        started = time.monotonic()
        opts = Options(policy=policy, clock=args.clock, quiet=args.quiet, compression=args.compression,
                       node_failures=rate, seed=SEED, until=warmup_s + days * 86400, warmup=warmup_s,
                       resolution=args.resolution * 60)  # fmt: skip
        out = simulate("staging", jobs, opts, config_dir=config_dir, on_tick=Progress(name, started),
                       on_step=lambda s, n=name: print(f"  {n}: {s}", flush=True))  # fmt: skip
        header = {**out.header, "scenario": name, "config": str(config_dir.relative_to(REPO)),
                  "total_wall_seconds": round(time.monotonic() - started, 1),
                  "timing": {k: round(v, 1) for k, v in out.run.timing.items()}, "notes": out.run.notes}  # fmt: skip
        (args.out / f"{name}.json").write_text(report.as_json(out.metrics, header))
        (args.out / f"{name}.events.jsonl").write_text(events.dump(out.run.events))
        report.plot(out.metrics, args.out / f"{name}.png", f"staging {name}: {len(jobs)} jobs, seed {SEED}")
        print(report.text(out.metrics, header), flush=True)
    print(table(args.out))
    return 0


class Progress:
    """Prints a line as the run enters each simulated day: how long the days took."""

    def __init__(self, name: str, started: float) -> None:
        self.name, self.started, self.day = name, started, 0

    def __call__(self, now: float) -> None:
        if now >= (self.day + 1) * 86400:
            self.day = int(now // 86400)
            print(f"  {self.name}: day {self.day} reached after {time.monotonic() - self.started:.0f} s", flush=True)


def table(out: Path) -> str:
    rows = [
        "| scenario | TPU util | GPU util | p95 wait h (nlp / research / serving) | preempted | lost chip-h | wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in SCENARIOS:
        path = out / f"{name}.json"
        if not path.is_file():
            continue
        d = json.loads(path.read_text())
        teams = d["teams"]
        p95 = " / ".join(f"{teams[t]['wait_p95_h']:.1f}" for t in ("nlp", "research", "serving"))
        pre = sum(t["preempted"] for t in teams.values())
        lost = sum(t["lost_chip_h"] for t in teams.values())
        u = d["utilization_by_resource"]
        rows.append(f"| {name} | {u.get('google.com/tpu', 0):.1%} | {u.get('nvidia.com/gpu', 0):.1%} | {p95} | "
                    f"{pre} | {lost:.1f} | {d['total_wall_seconds']} |")  # fmt: skip
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
