"""Wall time of the workload commands (lint, workload new, size, verify's comparison), each in a
fresh process, against `gke-accel validate` as the floor of a model-only command; and whether any of
them loaded jsii, the provider bindings or the kubernetes client.

    .venv/bin/python benchmarks/workloads_benchmark.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("jsii", "cdktf", "constructs", "cdktf_cdktf_provider_google", "kubernetes")
EXAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.yaml"))
COMMANDS = {
    "validate --env dev (floor)": ["validate", "--env", "dev"],
    "lint --env dev (6 examples)": ["lint", "--env", "dev", *EXAMPLES],
    "lint --env dev --env staging --env prod": ["lint", "--env", "dev", "--env", "staging", "--env", "prod", *EXAMPLES],
    "workload new (jobset)": [
        "workload",
        "new",
        "--env",
        "staging",
        "--team",
        "nlp",
        "--kind",
        "jobset",
        "--accelerator",
        "v5e",
        "--chips",
        "8",
        "--image",
        "x",
    ],
    "size 70B train (whole catalog)": ["size", "--params", "70B", "--task", "train"],
    "size 7B serve --env dev": ["size", "--params", "7B", "--task", "serve", "--env", "dev"],
}
PROBE = (
    "import sys, io, contextlib; from gke_accel.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()): rc = main(sys.argv[1:])\n"
    f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'command':45} {'median s':>9} {'min s':>7}  heavy modules loaded")
    for name, argv in COMMANDS.items():
        times, loaded = [], ""
        for _ in range(args.runs):
            start = time.perf_counter()
            result = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True,
                                    check=False)  # fmt: skip
            times.append(time.perf_counter() - start)
            loaded = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-200:]
        print(f"{name:45} {statistics.median(times):9.3f} {min(times):7.3f}  {loaded}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
