"""A twin's state folder is owned by one command at a time, and its processes are found by what they are.

- ``state_lock``: ``flock`` on ``<state>/twin.lock`` for the whole of ``twin up`` (and ``twin down``), so a
  second ``twin up`` on the same folder is refused at once with the holder's PID instead of starting a
  second control plane whose state file would overwrite the first's. The lock is released by the kernel
  when the holder exits, whatever way it exits; the file descriptor is not inherited by the twin's
  processes (Python opens it close-on-exec), so a detached twin does not hold it.
- ``find_processes``: every process of ours whose program is one of the twin's binaries and whose
  command line names a ``run-*`` folder of this state folder (etcd's ``--data-dir``, the components'
  ``--kubeconfig``, the controllers' ``--config``), read from ``/proc``. ``twin down`` stops these too,
  so the twin's processes are stopped even when ``twin.json`` was deleted or cannot be read. A shell or
  editor whose working folder is in the state folder is not one of them (its program is not a twin binary).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from gke_accel.twin.state import CONTROLLER_PREFIXES, ProcessRecord, cmdline, is_twin_program, start_ticks

LOCK_FILE = "twin.lock"


class StateBusy(RuntimeError):
    """Another gke-accel command holds the state folder; the message names it."""


@contextlib.contextmanager
def state_lock(state_dir: Path, action: str) -> Iterator[None]:
    """Hold ``<state>/twin.lock`` (exclusive, not waiting) while the block runs; StateBusy when another
    command holds it, naming what it does and its PID."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    except OSError as exc:
        why = "is a symbolic link" if exc.errno == errno.ELOOP else f"cannot be opened ({exc.strerror})"
        raise StateBusy(f"{path} {why}: remove it") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StateBusy(f"{path} is not a regular file: remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another gke-accel command"
            raise StateBusy(f"{state_dir} is in use by {holder}: wait for it to end, or stop it") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"`gke-accel twin {action}` (pid {os.getpid()})\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # releases the lock


def _name(argv0: str) -> str:
    name = os.path.basename(argv0)
    return name.split("-v")[0] if name.startswith(CONTROLLER_PREFIXES) else name


def find_processes(state_dir: Path) -> list[ProcessRecord]:
    """Our processes that are the twin's programs and name ``<state_dir>/run-*`` on their command line,
    by PID (oldest first), as records ``stop_process`` accepts (it checks them again before each signal)."""
    marker = str(Path(state_dir).resolve()) + os.sep + "run-"
    found: list[ProcessRecord] = []
    me = os.getuid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        try:
            if os.stat(f"/proc/{pid}").st_uid != me:
                continue
        except OSError:
            continue
        argv = cmdline(pid)
        if not argv or not is_twin_program(argv[0]) or not any(marker in a for a in argv[1:]):
            continue
        ticks = start_ticks(pid)
        if ticks is not None:
            found.append(ProcessRecord(_name(argv[0]), pid, argv[0], ticks))
    return sorted(found, key=lambda r: (r.start_ticks, r.pid))
