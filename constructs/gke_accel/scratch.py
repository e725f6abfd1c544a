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
_ADOPTED: list[Path] = []  # other scratch folders this process made (``review``'s base code has its own module)


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


def adopt(path: Path) -> None:
    """Remove ``path`` with this process's scratch folder (a folder made by another copy of this module:
    ``review`` imports the base revision's ``gke_accel`` beside the head's, and ``exit_now`` only calls
    the head's ``remove``)."""
    _ADOPTED.append(path)
    atexit.register(remove)


def remove() -> None:
    """Delete the scratch folder and every adopted one, if any was made (idempotent)."""
    if _DIR:
        shutil.rmtree(_DIR.pop(), ignore_errors=True)
    while _ADOPTED:
        shutil.rmtree(_ADOPTED.pop(), ignore_errors=True)
