"""Run ``gke-accel`` as a user does, in a subprocess, and measure what the findings' acceptance asks:
exit code, stderr lines, wall time and the command's own peak memory.

The peak is measured by a small wrapper process that forks the command and reports its
``RUSAGE_CHILDREN`` ``ru_maxrss``: a command started straight from pytest carries pytest's own
high-water mark into its ``ru_maxrss`` (``exec`` keeps the larger of the old and the new memory's
peak, and Python's ``subprocess`` starts children with ``vfork``, sharing pytest's memory until
``exec``), so the number grew with whatever earlier tests had loaded into this process."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[2]
GKE_ACCEL = str(Path(sys.executable).parent / "gke-accel")
CONFIG = str(REPO / "config")
# argv: REPORT_FD COMMAND ARGS...; writes "<exit code> <peak KiB>" to REPORT_FD (-N: killed by signal N)
_MEASURE = """
import os, resource, signal, sys
report, argv = int(sys.argv[1]), sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.close(report)
    os.execv(argv[0], argv)
signal.signal(signal.SIGINT, lambda n, _: os.kill(pid, n))
signal.signal(signal.SIGTERM, lambda n, _: os.kill(pid, n))
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
os.write(report, f"{code} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}".encode())
"""


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str
    seconds: float
    max_rss_mb: float

    @property
    def lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]

    def one_error(self) -> str:
        """The error as one message: one line (an option's mistake without its ``command-line error: ``
        heading), or a config file's ConfigError: its count line and its one issue."""
        assert "Traceback" not in self.err, self.err[-3000:]
        lines = self.lines
        if lines and lines[0].endswith("config error:"):
            assert len(lines) == 2, self.err
            return lines[1].strip().removeprefix("- ")
        assert len(lines) == 1, self.err
        return lines[0].removeprefix("command-line error: ")


def run(*argv: str, timeout: float = 60, stdin: bytes | None = None, cwd: Path = REPO,
        env: dict[str, str] | None = None, interrupt_after: float | None = None) -> Run:  # fmt: skip
    """``gke-accel ARGV``; killed (and failed) after ``timeout`` s; ``interrupt_after``: SIGINT then."""
    started = time.monotonic()
    report_r, report_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _MEASURE, str(report_w), GKE_ACCEL, *argv],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env={**os.environ, **(env or {})}, pass_fds=(report_w,), process_group=0)  # fmt: skip
    os.close(report_w)
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream: IO[bytes]) -> None:
        chunks[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(n, s), daemon=True)
               for n, s in (("out", proc.stdout), ("err", proc.stderr))]  # fmt: skip
    for reader in readers:
        reader.start()
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.write(stdin or b"")
    proc.stdin.close()
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        proc.send_signal(signal.SIGINT)  # the wrapper passes it on to the command
    try:
        proc.wait(timeout=max(0.0, started + timeout - time.monotonic()))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the wrapper and the command
        proc.wait()
        os.close(report_r)
        raise AssertionError(f"gke-accel {' '.join(argv)} ran longer than {timeout} s") from None
    with os.fdopen(report_r, "rb") as report:
        code, peak_kib = (int(v) for v in report.read().split())
    for reader in readers:
        reader.join(timeout=10)
    return Run(code, chunks.get("out", b"").decode(errors="replace"),
               chunks.get("err", b"").decode(errors="replace"), time.monotonic() - started,
               peak_kib / 1024)  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
