"""Waits of one-slice and two-slice TPU jobs from a bench-queues result (docs/queues.md "The stress
week on 0.19.2"): the event log split by the trace's ``slices`` column and run through the same
``metrics.compute`` the benchmark reports with (waits include re-queueing; ``first`` is submission to
first admission only, the form the 0.17 week published).

    python benchmarks/queues/two_slice.py stress-cohort stress-static cohort:trace static:trace --until-h 120

``NAME[:TRACE]`` reads results/NAME.json, NAME.events.jsonl and TRACE.trace.csv (default NAME; the 0.17
results' trace is ``trace.csv``). ``--until-h`` cuts every log at that hour (same window for all).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gke_accel.simulate import events, metrics, trace

HERE = Path(__file__).resolve().parent / "results"


def rows(name: str, trace_name: str, until_h: float | None, results: Path = HERE) -> list[str]:
    header = json.loads((results / f"{name}.json").read_text())
    log = events.load((results / f"{name}.events.jsonl").read_text())
    csv = results / ("trace.csv" if trace_name == "trace" else f"{trace_name}.trace.csv")
    jobs = trace.read_trace(csv)
    horizon = float(header["horizon_h"]) * 3600
    if until_h is not None and until_h * 3600 < horizon:
        horizon = until_h * 3600
        log = [e for e in log if e.t < horizon]
    start = float(header["measured_from_h"]) * 3600
    out = []
    for slices in (1, 2):
        names = {j.name for j in jobs if j.slices == slices and j.accelerator.startswith("v5e")}
        m = metrics.compute([e for e in log if e.job in names], horizon=horizon, capacity={}, resource_of={},
                            nominal={}, start=start)  # fmt: skip
        for team, stats in sorted(m.teams.items()):
            s = stats.summary()
            if not s["waits_n"]:
                continue
            out.append(f"| {name} | {horizon / 3600:.0f} h | {team} | {slices} | {s['waits_n']} | "
                       f"{s['wait_p50_h']:.1f} / {s['wait_p95_h']:.1f} | "
                       f"{s['first_wait_p50_h']:.1f} / {s['first_wait_p95_h']:.1f} | "
                       f"{s['never_admitted']} |")  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="NAME or NAME:TRACE")
    parser.add_argument("--until-h", type=float, help="cut every log at this hour")
    args = parser.parse_args()
    print("| result | window end | team | slices | jobs | wait p50 / p95 h | first wait p50 / p95 h | never admitted |")
    print("|---|---|---|---|---|---|---|---|")
    for item in args.results:
        name, _, trace_name = item.partition(":")
        print("\n".join(rows(name, trace_name or name, args.until_h)))


if __name__ == "__main__":
    main()
