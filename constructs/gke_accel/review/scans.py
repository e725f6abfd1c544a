"""Policy findings new in the head and resolved by it: checkov over the stacks that changed.

An unchanged stack has the same findings on both sides, so it is not scanned. The head's scan can
start while the base is still being synthesized (``start_scan``); the base is then scanned only
where it differs. checkov runs as a subprocess, so the scans overlap with synthesis for real.
"""

from __future__ import annotations

import shutil
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from gke_accel.policy import scan_stacks

from .build import SideResult
from .model import PolicyChange, Review

Findings = set[PolicyChange]


def changed_stacks(base: SideResult, head: SideResult) -> list[str]:
    """Stacks whose synthesized JSON differs: only these can have new or resolved findings."""
    return sorted(env for env in set(base.stacks) | set(head.stacks) if base.stacks.get(env) != head.stacks.get(env))


def scan_side(side: SideResult, envs: list[str] | None, scratch: Path) -> Findings:
    """checkov over ``envs`` of one side (all of them when None), copied into a folder of their own."""
    folder = scratch / side.label
    for env in side.stacks if envs is None else envs:
        if env in side.stacks:
            (folder / env).mkdir(parents=True, exist_ok=True)
            shutil.copy2(side.stacks_dir / env / "cdk.tf.json", folder / env / "cdk.tf.json")
    if not folder.exists():
        return set()
    report = scan_stacks(folder)
    return {PolicyChange(f.stack, f.check_id, f.resource, f.title) for f in report.failed}


def start_scan(pool: ThreadPoolExecutor, side: SideResult, scratch: Path) -> Future[Findings]:
    """Scan every stack of ``side`` in the background (nothing writes to its stacks folder meanwhile:
    the base is synthesized elsewhere)."""
    return pool.submit(scan_side, side, None, scratch)


def add_policy(
    review: Review, base: SideResult, head: SideResult, *, head_scan: Future[Findings] | None = None
) -> None:
    """Record the findings new in the head and those it resolves, per stack. ``head_scan``: the
    head's findings over all its stacks, started earlier."""
    envs = changed_stacks(base, head)
    scratch = Path(tempfile.mkdtemp(prefix="gke-accel-review-scan-"))
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            old_future = pool.submit(scan_side, base, envs, scratch)
            new_future = head_scan or pool.submit(scan_side, head, envs, scratch)
            old = old_future.result()
            new = {f for f in new_future.result() if f.stack in envs}
    except Exception as exc:  # checkov missing or failing: say so, do not hide the rest of the review
        review.notes.append(f"policy scan unavailable: {exc}")
        return
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    review.policy_checked = True

    def key(f: PolicyChange) -> tuple[str, str, str]:
        return (f.stack, f.check_id, f.resource)

    old_keys, new_keys = {key(f) for f in old}, {key(f) for f in new}
    by_stack = {s.name: s for s in review.stacks}
    for finding in sorted(new, key=key):
        if key(finding) not in old_keys and finding.stack in by_stack:
            by_stack[finding.stack].new_findings.append(finding)
    for finding in sorted(old, key=key):
        if key(finding) not in new_keys and finding.stack in by_stack:
            by_stack[finding.stack].resolved_findings.append(finding)
