"""jsii's Node child ends with its Python parent (reliability finding D13): after a SIGKILL of Python,
which runs no atexit hook, no ``node`` is left running. The child is found by its PID (the parent's
/proc children list), never by name: other runs on this machine use node too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# jsii's node also exits when it reads EOF on its stdin, which comes only when every copy of the pipe's
# write end is closed; a process forked after jsii started (the review's checkov zygote, a worker) holds
# one, so the parent's death alone must end node. The holder prints its PID first, then node's.
PARENT = """
import os, time
import gke_accel.cdk._framework  # starts jsii's node child
tasks = f"/proc/{os.getpid()}/task"
node = " ".join(c for t in os.listdir(tasks) for c in open(f"{tasks}/{t}/children").read().split())
holder = os.fork()
if holder == 0:
    time.sleep(60)
    os._exit(0)
print(holder, node, flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper (a dead process still has a /proc entry then)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_node_child_ends_when_python_is_killed() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    children: list[int] = []
    holder = 0
    try:
        assert parent.stdout is not None
        holder, *children = [int(p) for p in parent.stdout.readline().split()]
        assert children, "jsii started no child process"
        assert all(_alive(c) for c in children)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 2
        while any(_alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(c) for c in children), f"node still running after its parent was killed: {children}"
    finally:
        for pid in [*children, holder]:  # never leave one behind, whatever happened
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()
