"""The checkpoint part of ``gke-accel size`` (training and fine-tuning): checkpoint size, write time
at a given throughput, and the interval that keeps lost work within a budget (model/storage/checkpoint.py)."""

from __future__ import annotations

import argparse
from typing import Any

from gke_accel.model.core.errors import ConfigError, ConfigIssue
from gke_accel.model.storage.checkpoint import CheckpointPlan, checkpoint_bytes
from gke_accel.tables import fit_text
from gke_accel.workloads.size.memory import GIB, MemoryEstimate


def add_arguments(p: Any) -> None:
    p.add_argument("--checkpoint-gbps", type=float, help="aggregate checkpoint write throughput in GB/s (measured)")
    p.add_argument("--run-hours", type=float, default=24.0, help="length of the training run (default 24)")
    p.add_argument("--interruptions", type=float, default=1.0, help="interruptions expected per run (default 1)")
    p.add_argument("--lost-budget", type=float, default=0.05, help="share of the run that may be lost (default 0.05)")


def checkpoint_plan(est: MemoryEstimate, args: argparse.Namespace) -> CheckpointPlan | None:
    if est.task == "serve":
        return None
    issues = []
    for flag, value, low in (
        ("--checkpoint-gbps", args.checkpoint_gbps, 0.0),
        ("--run-hours", args.run_hours, 0.0),
        ("--interruptions", args.interruptions, 0.0),
    ):
        if value is not None and value <= low:
            issues.append(ConfigIssue(flag, f"{value:g} is out of range", "more than 0"))
    if not 0 < args.lost_budget < 1:
        issues.append(
            ConfigIssue("--lost-budget", f"{args.lost_budget:g} is out of range", "between 0 and 1, e.g. 0.05")
        )
    if issues:
        raise ConfigError(issues)
    terms = {t.name: t.bytes for t in est.terms}
    return CheckpointPlan(
        checkpoint_bytes(terms), args.checkpoint_gbps, args.run_hours, args.interruptions, args.lost_budget
    )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def checkpoint_text(cp: CheckpointPlan) -> str:
    head = f"checkpoint: {cp.size_bytes / GIB:,.1f} GiB (weights + optimizer state)"
    if cp.write_seconds is None or cp.interval_seconds is None or cp.lost_share is None:
        return fit_text(
            head + "; write time: give --checkpoint-gbps (Cloud Storage publishes no write bandwidth per bucket; "
            "measure what the slice writes)"
        )
    verdict = "within" if cp.within_budget else "over"
    return fit_text(
        f"{head}; write {_duration(cp.write_seconds)} at {cp.write_gbps:g} GB/s; checkpoint every "
        f"{_duration(cp.interval_seconds)} = sqrt(write x run / interruptions) for a {cp.run_hours:g} h run with "
        f"{cp.interruptions:g} interruption(s): {cp.lost_share:.1%} of the run lost (writing + redone work), "
        f"{verdict} the {cp.lost_budget_text} budget"
    )


def checkpoint_json(cp: CheckpointPlan) -> dict[str, Any]:
    return {
        "size_gib": round(cp.size_bytes / GIB, 3),
        "write_gbps": cp.write_gbps,
        "write_seconds": None if cp.write_seconds is None else round(cp.write_seconds, 1),
        "interval_seconds": None if cp.interval_seconds is None else round(cp.interval_seconds, 1),
        "lost_share": None if cp.lost_share is None else round(cp.lost_share, 4),
        "budget": cp.budget,
        "within_budget": cp.within_budget,
    }
