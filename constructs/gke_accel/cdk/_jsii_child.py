"""The jsii runtime's Node child ends with its Python parent (reliability finding D13).

jsii starts ``node`` with ``subprocess.Popen`` and stops it from an ``atexit`` hook, which never runs
when Python is killed (SIGKILL, an OOM kill) and runs late after an interrupt: ``node`` was seen alive
for seconds after Python had gone. On Linux the child asks the kernel for a signal when its parent
dies (``prctl(PR_SET_PDEATHSIG, SIGTERM)``, kept across ``execve``); elsewhere nothing changes.
Both also keep their temporary files in the process's scratch folder (gke_accel/scratch.py): the copy
of the jsii runtime that jsii's Python side extracts (a ``tempfile.TemporaryDirectory``) and Node's
``jsii-kernel-*`` folder (``TMPDIR``). Their own clean-up runs from jsii's ``atexit`` hook, which the
``gke-accel`` command skips (``os._exit``); the scratch folder is removed on every exit.
Installed on import; ``_framework`` imports this first, i.e. before jsii starts ``node``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import subprocess
import sys
import tempfile
import threading
import types
from typing import Any

from gke_accel.scratch import scratch_dir

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent(parent: int) -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    # PR_SET_PDEATHSIG fires when the *thread* that forked exits: only from the main thread, whose
    # end is the process's end
    if threading.current_thread() is threading.main_thread() and "preexec_fn" not in kwargs:
        kwargs["preexec_fn"] = functools.partial(_die_with_parent, os.getpid())
    kwargs["env"] = {**(kwargs.get("env") or os.environ), "TMPDIR": str(scratch_dir("node"))}
    return subprocess.Popen(*args, **kwargs)


def _temporary_directory(*args: Any, **kwargs: Any) -> tempfile.TemporaryDirectory[str]:
    kwargs.setdefault("dir", str(scratch_dir("jsii")))
    kwargs.setdefault("ignore_cleanup_errors", True)  # the scratch folder may be gone first
    return tempfile.TemporaryDirectory(*args, **kwargs)


def install() -> None:
    """Give jsii's process provider a ``subprocess`` whose Popen sets the parent-death signal and the
    Node kernel's TMPDIR, and a ``tempfile`` whose folders are in the scratch folder."""
    if not sys.platform.startswith("linux"):
        return
    from jsii._kernel.providers import process

    if getattr(getattr(process, "subprocess", None), "gke_accel_pdeathsig", False):
        return
    patched = types.ModuleType("subprocess")
    patched.__dict__.update(vars(subprocess))
    patched.__dict__.update(Popen=_popen, gke_accel_pdeathsig=True)
    setattr(process, "subprocess", patched)  # noqa: B010 (the module does not export the name)
    scratch = types.ModuleType("tempfile")
    scratch.__dict__.update(vars(tempfile))
    scratch.__dict__.update(TemporaryDirectory=_temporary_directory)
    setattr(process, "tempfile", scratch)  # noqa: B010


install()
