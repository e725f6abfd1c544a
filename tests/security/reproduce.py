"""Run ``gke-accel`` as a user does, in a subprocess, and measure what the findings' acceptance asks:
exit code, stderr lines, wall time and the child's peak memory (``wait4``'s ``ru_maxrss``)."""

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
        """The error as one message: one line, or a ConfigError's count line and its one issue."""
        assert "Traceback" not in self.err, self.err[-3000:]
        lines = self.lines
        if lines and lines[0].endswith("config error:"):
            assert len(lines) == 2, self.err
            return lines[1].strip().removeprefix("- ")
        assert len(lines) == 1, self.err
        return lines[0]


def run(*argv: str, timeout: float = 60, stdin: bytes | None = None, cwd: Path = REPO,
        env: dict[str, str] | None = None, interrupt_after: float | None = None) -> Run:  # fmt: skip
    """``gke-accel ARGV``; killed (and failed) after ``timeout`` s; ``interrupt_after``: SIGINT then."""
    started = time.monotonic()
    proc = subprocess.Popen([GKE_ACCEL, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env={**os.environ, **(env or {})})  # fmt: skip
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
        proc.send_signal(signal.SIGINT)
    deadline = started + timeout
    while True:  # wait4: this child's own peak memory, not the maximum over every child of the test run
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise AssertionError(f"gke-accel {' '.join(argv)} ran longer than {timeout} s")
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join(timeout=10)
    return Run(proc.returncode, chunks.get("out", b"").decode(errors="replace"),
               chunks.get("err", b"").decode(errors="replace"), time.monotonic() - started,
               usage.ru_maxrss / 1024)  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
