"""Policy findings new in the head and resolved by it: checkov over the stacks that changed.

An unchanged stack has the same findings on both sides, so it is not scanned. The head's scan can
start while the base is still being synthesized (``start_scan``); the base is then scanned only
where it differs. checkov runs as a subprocess, so the scans overlap with synthesis for real.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO

from gke_accel.policy import scan_stacks
from gke_accel.policy.scan import CHECKOV_ENV, Runner, run_subprocess

from .build import SideResult
from .model import PolicyChange, Review

Findings = set[PolicyChange]


class CheckovZygote:
    """``_checkov_zygote.py`` in the background: started early, it imports checkov while the review
    synthesizes; ``run`` then costs a fork instead of an interpreter start. Falls back to a plain
    subprocess when the zygote is not usable."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dir = Path(tempfile.mkdtemp(prefix="gke-accel-checkov-"))
        self._proc: subprocess.Popen[str] | None = None
        try:
            self._proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("_checkov_zygote.py"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env={**os.environ, **CHECKOV_ENV},
                start_new_session=True,  # its own process group: stop() ends it and a running scan
            )
        except OSError:
            self._proc = None
        self._ready: bool | None = None
        self._count = 0
        self._stopped = False

    def _reply(self, stdout: IO[str]) -> dict[str, object] | None:
        line = stdout.readline()
        return json.loads(line) if line.strip() else None

    def run(self, args: list[str]) -> tuple[int, str, str]:
        if self._stopped:
            raise RuntimeError("the checkov helper was stopped")
        with self._lock:
            proc = self._proc
            if proc is not None and proc.stdin is not None and proc.stdout is not None and self._ready is not False:
                try:
                    if self._ready is None:
                        self._ready = bool((self._reply(proc.stdout) or {}).get("ready"))
                    if self._ready:
                        self._count += 1
                        out, err = self._dir / f"{self._count}.out", self._dir / f"{self._count}.err"
                        proc.stdin.write(json.dumps({"args": args, "out": str(out), "err": str(err)}) + "\n")
                        proc.stdin.flush()
                        reply = self._reply(proc.stdout)
                        if reply is not None:
                            code = reply.get("code")
                            return int(code) if isinstance(code, int) else 1, out.read_text(), err.read_text()
                except (OSError, ValueError):
                    pass
                self._ready = False  # broken: every later scan takes the plain path
        if self._stopped:  # stopped while this scan ran: its result is not wanted
            raise RuntimeError("the checkov helper was stopped")
        return run_subprocess(args)

    def stop(self) -> None:
        """End the helper and any scan it is running (a scan nobody waits for: nothing changed)."""
        self._stopped = True
        if self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        self.close()

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        shutil.rmtree(self._dir, ignore_errors=True)


def changed_stacks(base: SideResult, head: SideResult) -> list[str]:
    """Stacks whose synthesized JSON differs: only these can have new or resolved findings."""
    return sorted(env for env in set(base.stacks) | set(head.stacks) if base.stacks.get(env) != head.stacks.get(env))


def scan_side(side: SideResult, envs: list[str] | None, scratch: Path, runner: Runner | None = None) -> Findings:
    """checkov over ``envs`` of one side (all of them when None), copied into a folder of their own."""
    folder = scratch / side.label
    for env in side.stacks if envs is None else envs:
        if env in side.stacks:
            (folder / env).mkdir(parents=True, exist_ok=True)
            shutil.copy2(side.stacks_dir / env / "cdk.tf.json", folder / env / "cdk.tf.json")
    if not folder.exists():
        return set()
    report = scan_stacks(folder, runner)
    return {PolicyChange(f.stack, f.check_id, f.resource, f.title) for f in report.failed}


def start_scan(
    pool: ThreadPoolExecutor, side: SideResult, scratch: Path, runner: Runner | None = None
) -> Future[Findings]:
    """Scan every stack of ``side`` in the background (nothing writes to its stacks folder meanwhile:
    the base is synthesized elsewhere)."""
    return pool.submit(scan_side, side, None, scratch, runner)


def add_policy(
    review: Review,
    base: SideResult,
    head: SideResult,
    *,
    head_scan: Future[Findings] | None = None,
    runner: Runner | None = None,
) -> None:
    """Record the findings new in the head and those it resolves, per stack. ``head_scan``: the
    head's findings over all its stacks, started earlier; ``runner`` runs checkov."""
    envs = changed_stacks(base, head)
    if not envs:  # same JSON, same findings: nothing to scan or wait for
        review.policy_checked = True
        return
    scratch = Path(tempfile.mkdtemp(prefix="gke-accel-review-scan-"))
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            old_future = pool.submit(scan_side, base, envs, scratch, runner)
            new_future = head_scan or pool.submit(scan_side, head, envs, scratch, runner)
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
