"""Measure wall time and peak memory (RSS summed over the whole process tree: Python plus the jsii
Node process) of the floor (both provider bindings imported, an empty stack synthesized) and
`gke-accel synth` for every environment, on each framework, plus `gke-accel validate`.

    .venv/bin/python benchmarks/synth_benchmark.py [--runs 3] [--tests] [--frameworks cdktn,cdktf]

Each framework runs from its own environment (`GKE_ACCEL_FRAMEWORK` set): cdktn from .venv, cdktf
from .venv-cdktf (`make setup-other-framework`); a framework whose environment is missing is
reported as such. Each command runs in a fresh process; memory is sampled from /proc every 20 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PYTHONS = {"cdktn": ROOT / ".venv" / "bin" / "python", "cdktf": ROOT / ".venv-cdktf" / "bin" / "python"}


def _tree_rss_kib(root_pid: int) -> int:
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        pid, ppid = int(entry), int(fields.get("PPid", "0").strip())
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def measure(cmd: list[str], framework: str | None = None) -> tuple[float, float]:
    """Wall seconds and peak tree RSS in MiB of one run of ``cmd``."""
    env = {
        **os.environ,
        **({"GKE_ACCEL_FRAMEWORK": framework} if framework else {}),
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss_kib(proc.pid))
        time.sleep(0.02)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.read().decode()[-2000:]}")
    return wall, peak / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tests", action="store_true", help="also time the whole test suite once")
    parser.add_argument("--frameworks", default="cdktn,cdktf", help="comma-separated (default: cdktn,cdktf)")
    args = parser.parse_args()
    out = tempfile.mkdtemp(prefix="bench-synth-")
    commands: dict[str, tuple[list[str], str | None]] = {}
    for framework in args.frameworks.split(","):
        python = PYTHONS.get(framework)
        if python is None or not python.exists():
            print(f"{framework}: no environment at {python} (make setup-other-framework); skipped")
            continue
        commands[f"{framework}: floor (2 bindings + empty)"] = ([str(python), "benchmarks/floor.py"], framework)
        synth = [str(python), "-m", "gke_accel.cli.main", "synth", "--outdir", f"{out}/{framework}"]
        commands[f"{framework}: gke-accel synth (all envs)"] = (synth, framework)
    commands["gke-accel validate (all envs)"] = ([str(BIN / "gke-accel"), "validate"], None)
    if args.tests:
        commands["pytest (whole suite)"] = ([str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"], None)
    print(f"{'command':38} {'runs':>4} {'wall s (median)':>16} {'min':>6} {'peak MiB (max)':>15}")
    for name, (cmd, framework) in commands.items():
        runs = 1 if name.startswith("pytest") else args.runs
        results = [measure(cmd, framework) for _ in range(runs)]
        walls = [w for w, _ in results]
        print(
            f"{name:38} {runs:>4} {statistics.median(walls):>16.2f} {min(walls):>6.2f} "
            f"{max(m for _, m in results):>15.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
