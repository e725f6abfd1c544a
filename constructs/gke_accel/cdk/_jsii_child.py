"""The jsii runtime's Node child ends with its Python parent (reliability finding D13).

jsii starts ``node`` with ``subprocess.Popen`` and stops it from an ``atexit`` hook, which never runs
when Python is killed (SIGKILL, an OOM kill) and runs late after an interrupt: ``node`` was seen alive
for seconds after Python had gone. On Linux the child asks the kernel for a signal when its parent
dies (``prctl(PR_SET_PDEATHSIG, SIGTERM)``, kept across ``execve``); elsewhere nothing changes.
Installed on import; ``_framework`` imports this first, i.e. before jsii starts ``node``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import subprocess
import sys
import threading
import types
from typing import Any

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
    return subprocess.Popen(*args, **kwargs)


def install() -> None:
    """Give jsii's process provider a ``subprocess`` whose Popen sets the parent-death signal."""
    if not sys.platform.startswith("linux"):
        return
    from jsii._kernel.providers import process

    if getattr(getattr(process, "subprocess", None), "gke_accel_pdeathsig", False):
        return
    patched = types.ModuleType("subprocess")
    patched.__dict__.update(vars(subprocess))
    patched.__dict__.update(Popen=_popen, gke_accel_pdeathsig=True)
    setattr(process, "subprocess", patched)  # noqa: B010 (the module does not export the name)


install()
