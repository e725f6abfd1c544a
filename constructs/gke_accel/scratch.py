"""The process's scratch folder: one directory under the system's temporary folder for what a command
writes only while it runs (generated Helm charts, the jsii runtime and its Node kernel's files),
removed when the process ends.

``atexit`` alone is not enough: the ``gke-accel`` command ends with ``os._exit`` once the jsii runtime
is loaded (cli/progress.py ``exit_now``: no seconds of interpreter teardown), which runs no exit hook;
so ``exit_now`` and the interrupt path call ``remove`` themselves, and every other exit runs it from
``atexit``. Each ``gke-accel synth`` left three folders in /tmp before (a chart folder, jsii's runtime
copy and the Node kernel's ``jsii-kernel-*``)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

_DIR: list[Path] = []


def scratch_root() -> Path:
    """The process's scratch folder (created on first use; ``remove`` deletes it)."""
    if not _DIR:
        _DIR[:] = [Path(tempfile.mkdtemp(prefix=f"gke-accel-{os.getpid()}-"))]
        atexit.register(remove)
    return _DIR[0]


def scratch_dir(name: str) -> Path:
    """``name`` inside the process's scratch folder, created."""
    path = scratch_root() / name
    path.mkdir(exist_ok=True)
    return path


def remove() -> None:
    """Delete the scratch folder, if one was made (idempotent)."""
    if _DIR:
        shutil.rmtree(_DIR.pop(), ignore_errors=True)
