"""tools/lib/lock.sh: a build waiting on another build's lock says who holds it, what it is building
and for how long, at every interval, and goes on once the holder ends (N19: 21 minutes of one line)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

LIB = Path(__file__).resolve().parents[2] / "tools" / "lib" / "lock.sh"


def _bash(script: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(["bash", "-c", f"set -euo pipefail; source {LIB}; {script}"], text=True, **kwargs)  # type: ignore[call-overload]


def test_a_waiter_names_the_holder_and_its_step_then_proceeds(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    holder = _bash(
        f'exec 9>"{lock}"; lock_acquire 9 "{lock}" holder; lock_note "{lock}" "building kube-apiserver"; '
        "echo held; exec sleep 300",
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        waiter = _bash(
            f'exec 9>"{lock}"; lock_acquire 9 "{lock}" waiter; echo acquired',
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "LOCK_REPORT_SECONDS": "1"},
        )
        time.sleep(3.5)  # three report intervals of the waiter
        assert waiter.poll() is None  # still waiting: the holder holds the lock
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(timeout=30)
    out, err = waiter.communicate(timeout=30)
    assert out.strip() == "acquired" and waiter.returncode == 0
    lines = err.splitlines()
    assert lines[0].startswith(f"waiter: another build holds {lock}: pid {holder.pid} (running)")
    still = [line for line in lines if line.startswith("waiter: still waiting (")]
    assert len(still) >= 2 and all("now: building kube-apiserver" in line for line in still)
    assert lines[-1].startswith("waiter: the other build finished after")


def test_a_free_lock_is_taken_silently(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    proc = _bash(
        f'exec 9>"{lock}"; lock_acquire 9 "{lock}" solo; echo ok', stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = proc.communicate(timeout=30)
    assert (out.strip(), err, proc.returncode) == ("ok", "", 0)
    pid, _since, step = (lock.parent / "build.lock.owner").read_text().split(" ", 2)
    assert int(pid) == proc.pid and step.strip() == "starting"
