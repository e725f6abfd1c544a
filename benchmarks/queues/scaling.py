"""How the virtual clock's wall time grows with the trace (issue 42: "seconds per job and per simulated
day for 25, 50, 100, 200 and 400 jobs, and how it grows").

Each size N is the first N jobs of one ``--generate`` trace of staging as shipped (seed SEED, load 0.9,
arrivals at any second, not on an hourly grid: every job's submission and end is its own settle, the
costly case a user's own trace is), so the density of jobs stays that of the stress week and only the
length of the run grows. Each size runs in its own twin, one at a time (cohort policy, the default
``--quiet``); twin start-up is reported apart from the run.

    python benchmarks/queues/scaling.py [--sizes 25 50 100 200 400] [--out results/scaling.json]

Prints a Markdown table and writes the rows as JSON: jobs, simulated days, settles (events jumped to),
run wall seconds, seconds per job, per simulated day and per settle, start-up seconds, and the machine's
load average at the start and end of each run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from gke_accel.model import load_environment
from gke_accel.simulate import generate
from gke_accel.simulate.session import Options, simulate
from gke_accel.simulate.trace import TraceJob

HERE = Path(__file__).resolve().parent
CONFIG = HERE.parents[1] / "config"
SEED, LOAD, DAY = 20261202, 0.9, 86400.0
SIZES = (25, 50, 100, 200, 400)


def prefix(size: int) -> list[TraceJob]:
    """The first ``size`` jobs (by submission) of a trace long enough to hold them."""
    plan = load_environment(str(CONFIG / "staging.yaml"))
    days = 8.0  # the stress week's length: about 600 jobs
    while True:
        jobs = sorted(generate.generate(plan, generate.Settings(seed=SEED, days=days, load=LOAD)),
                      key=lambda j: (j.submit, j.name))  # fmt: skip
        if len(jobs) >= size:
            return jobs[:size]
        days *= 2


def row(size: int, quiet: float) -> dict[str, float]:
    jobs = prefix(size)
    load0 = os.getloadavg()[0]
    started = time.monotonic()
    res = simulate("staging", jobs, Options(quiet=quiet), config_dir=CONFIG)
    total = time.monotonic() - started
    run = res.run
    days = run.until / DAY
    settles = run.timing.get("jumps", 0.0)
    return {"jobs": size, "simulated_days": round(days, 2), "settles": int(settles),
            "run_wall_s": round(run.wall, 1), "startup_wall_s": round(total - run.wall, 1),
            "s_per_job": round(run.wall / size, 2), "s_per_simulated_day": round(run.wall / days, 1) if days else 0.0,
            "s_per_settle": round(run.wall / settles, 2) if settles else 0.0,
            "load_start": round(load0, 1), "load_end": round(os.getloadavg()[0], 1)}  # fmt: skip


def table(rows: list[dict[str, float]]) -> str:
    out = ["| jobs | simulated days | settles | run wall s | s / job | s / simulated day | s / settle | start-up s "
           "| load avg |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        out.append(f"| {r['jobs']} | {r['simulated_days']} | {r['settles']} | {r['run_wall_s']} | {r['s_per_job']} | "
                   f"{r['s_per_simulated_day']} | {r['s_per_settle']} | {r['startup_wall_s']} | "
                   f"{r['load_start']}-{r['load_end']} |")  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="trace sizes (jobs)")
    parser.add_argument("--quiet", type=float, default=1.2, help="virtual clock: wall seconds quiet = settled")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scaling.json")
    args = parser.parse_args(argv)
    if any(s < 1 or s > 10_000 for s in args.sizes):
        parser.error(f"--sizes: every size must be 1 to 10000 jobs, got {args.sizes}")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a kill stops the twin by PID, like Ctrl-C
    rows: list[dict[str, float]] = []
    for size in args.sizes:
        rows.append(row(size, args.quiet))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"seed": SEED, "load": LOAD, "rows": rows}, indent=2) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
