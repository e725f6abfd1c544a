"""Processes that are what a twin process is to ``/proc`` (a twin program's name as argv[0], a command
line naming ``<state>/run-1``), without the Kubernetes binaries: a Python sleep under that name."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def fake_program(bin_dir: Path, name: str, state: Path) -> subprocess.Popen[bytes]:
    """A process that is what a twin process is to ``/proc``: argv[0] a twin program's path
    (``<bin_dir>/etcd``) and a command line naming ``<state>/run-1`` (a Python sleep under that name)."""
    argv0 = str(bin_dir / name)
    code = "import time; time.sleep(300)"
    return subprocess.Popen(["bash", "-c", f'exec -a "$0" {sys.executable} -c "{code}" "$@"', argv0,
                             f"--data-dir={state / 'run-1' / name}"])  # fmt: skip


def wait_argv0(proc: subprocess.Popen[bytes], argv0: str) -> None:
    """Until the process's command line is the one it runs under (bash has exec'd)."""
    for _ in range(200):
        raw = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        if raw.split(b"\0")[0].decode() == argv0:
            return
        time.sleep(0.02)
    raise AssertionError(f"pid {proc.pid} never ran as {argv0}")
