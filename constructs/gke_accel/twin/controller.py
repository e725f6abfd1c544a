"""What the twin's Kueue and JobSet controllers share: the process (its own process group), its log,
the webhook registrations it made, and stopping it (registrations removed first, then TERM, KILL
after 10 s) by PID."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path
from typing import Any, Self

from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.webhooks import unregister


class ControllerProcess:
    name = "controller"

    def __init__(self, proc: subprocess.Popen[bytes], log: Path, cluster: LocalCluster) -> None:
        self.proc, self.log, self.cluster = proc, log, cluster
        self.webhooks: list[dict[str, Any]] = []
        self.binary = ""  # the controller binary (argv[0] once it runs), for the twin's state file

    def unregister_webhooks(self) -> None:
        unregister(self.cluster, self.webhooks)

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.proc.returncode}")

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Remove the webhook registrations, then TERM (KILL after 10 s) the controller's process group."""
        if self.webhooks:
            self.unregister_webhooks()
            self.webhooks = []
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
