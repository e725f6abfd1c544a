"""E6 and E8 with the real control plane (etcd, kube-apiserver, kube-controller-manager): processes a
twin started, detached, are stopped by ``twin down`` although no state file names them (found by their
command lines), and Ctrl-C during the control plane's start stays a KeyboardInterrupt (the CLI's exit
130) with nothing left running, instead of a "failed to start" with log tails."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from gke_accel.twin.state import cmdline
from gke_accel.twin.state_lock import find_processes
from security.reproduce import run

START = """
import signal
import sys
from pathlib import Path
# Ctrl-C raises KeyboardInterrupt even when this test runs under a shell that started it in the background
# (a non-interactive shell's background job inherits SIGINT ignored, and Python keeps it ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
from gke_accel.twin.cluster import LocalCluster, WORKLOAD_CONTROLLERS
try:
    cluster = LocalCluster.start(Path(sys.argv[1]), controllers=WORKLOAD_CONTROLLERS, detached=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(130)
except BaseException as exc:
    print(type(exc).__name__, str(exc).splitlines()[0], flush=True)
    sys.exit(1)
print(" ".join(str(p.pid) for p in cluster.procs.values()), flush=True)
"""


def test_down_stops_a_real_control_plane_whose_state_file_is_gone(control_plane: None, tmp_path: Path) -> None:
    state = tmp_path / "s"
    started = subprocess.run([sys.executable, "-c", START, str(state / "run-1" / "k8s")], capture_output=True,
                             text=True, timeout=180, check=False)  # fmt: skip
    assert started.returncode == 0, started.stdout + started.stderr
    pids = {int(p) for p in started.stdout.split()}
    assert len(pids) == 3  # etcd, kube-apiserver, kube-controller-manager, detached: they outlive their starter
    assert {r.pid for r in find_processes(state)} == pids
    down = run("twin", "down", "--state", str(state), timeout=90)
    assert down.code == 0 and "stopped 3 twin process(es) found by their command lines" in down.out, down.err
    for name in ("etcd", "kube-apiserver", "kube-controller-manager"):
        assert f"  {name} (pid " in down.out
    assert find_processes(state) == [] and not any(cmdline(p) for p in pids)


def test_ctrl_c_while_the_control_plane_starts_stays_an_interrupt(control_plane: None, tmp_path: Path) -> None:
    state = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-c", START, str(state / "run-1" / "k8s")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 30
    while not find_processes(state) and time.monotonic() < deadline:  # etcd runs: the start is under way
        time.sleep(0.05)
    assert find_processes(state), "etcd never started"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out.strip() == "KeyboardInterrupt", out + err
    assert "failed to start" not in out + err
    assert find_processes(state) == []  # everything it started is stopped
