"""Progress for long steps on a terminal, and a prompt exit once the work is done.

On a TTY (stderr) each step is a line with the elapsed time, and a long step counts seconds in
place; when stderr is not a terminal (CI logs, pipes) nothing is printed.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn, TextIO

from gke_accel import scratch


class Progress:
    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.started = time.perf_counter()

    def _stamp(self) -> str:
        return f"[{time.perf_counter() - self.started:5.1f}s]"

    def step(self, message: str) -> None:
        if self.enabled:
            self.stream.write(f"{self._stamp()} {message}\n")
            self.stream.flush()

    @contextmanager
    def long_step(self, message: str) -> Iterator[None]:
        """A step that may take a while: on a TTY the line shows the seconds spent so far."""
        if not self.enabled:
            yield
            return
        done = threading.Event()
        begun = time.perf_counter()

        def tick() -> None:
            while not done.wait(1.0):
                self.stream.write(f"\r{self._stamp()} {message} {time.perf_counter() - begun:.0f}s")
                self.stream.flush()

        self.stream.write(f"{self._stamp()} {message}")
        self.stream.flush()
        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
            self.stream.write(f"\r{self._stamp()} {message} done in {time.perf_counter() - begun:.1f}s\n")
            self.stream.flush()


def exit_now(code: int) -> NoReturn:
    """Flush the output and end the process without interpreter teardown.

    Once the jsii runtime and the provider bindings are loaded, the normal shutdown spends seconds
    collecting hundreds of thousands of objects and stopping the Node kernel; by then every file is
    written and closed. The Node process sees its stdin close and exits on its own.
    """
    gc.freeze()  # nothing left to collect that matters; avoid a full collection on the way out
    scratch.remove()  # no exit hook runs after os._exit
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more can be written
            stream.flush()
    os._exit(code)
