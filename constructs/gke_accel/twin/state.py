"""The twin's state file (``<state>/twin.json``) and stopping its processes by PID.

``gke-accel twin up`` starts every process in a session of its own and exits; the state file is how
``twin down`` and ``twin status`` find them again: per process its name, PID, the binary it runs and its
start time (field 22 of ``/proc/<pid>/stat``, clock ticks since boot). A process counts as the twin's
only while ``/proc/<pid>/cmdline`` names that binary and the start time is the recorded one, so a PID the
kernel has since given to another program is never signalled. Nothing is ever stopped by name.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gke_accel.model.core.errors import ConfigError
from gke_accel.model.core.input_files import MAX_STATE_BYTES, parse_json, read_text
from gke_accel.model.core.show import show

STATE_FILE = "twin.json"
FORMAT = 1  # the state file's version; a file of another version is refused with its path
# the programs the twin starts (cluster.py, kueue.py, jobset.py: controllers are cached as <name>-v<version>)
PROGRAMS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
CONTROLLER_PREFIXES = ("kueue-v", "jobset-v")


def is_twin_program(argv0: str) -> bool:
    """``argv0`` is a program the twin starts (a process running anything else is never signalled)."""
    name = os.path.basename(argv0)
    return name in PROGRAMS or name.startswith(CONTROLLER_PREFIXES)


class StateError(ValueError):
    """The state file cannot be read: the message names the file, the field and what is wrong."""


@dataclass(frozen=True)
class ProcessRecord:
    name: str  # etcd, kube-apiserver, ..., kueue, jobset
    pid: int
    binary: str  # argv[0] as started (an absolute path)
    start_ticks: int  # /proc/<pid>/stat field 22 when it was recorded

    @classmethod
    def of(cls, name: str, pid: int, binary: str) -> ProcessRecord:
        ticks = start_ticks(pid)
        if ticks is None:
            raise StateError(f"{name} (pid {pid}) exited before it could be recorded")
        return cls(name, pid, binary, ticks)


@dataclass(frozen=True)
class TwinState:
    env: str
    run_dir: str  # this run's folder (certificates, etcd data, logs) inside the state folder
    kubeconfig: str
    server: str
    started_at: float  # Unix time
    up_seconds: float  # wall time of ``twin up``
    processes: tuple[ProcessRecord, ...]
    nodes: int = 0
    releases: tuple[str, ...] = ()
    stopped_at: float | None = None
    format: int = field(default=FORMAT)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, source: Path) -> TwinState:
        """The state in ``text`` (JSON without duplicate keys, NaN or deep nesting); StateError otherwise."""
        try:
            data = parse_json(text, str(source))
        except ConfigError as err:
            raise StateError("; ".join(i.render() for i in err.issues)) from None
        return cls.from_data(data, source)

    @classmethod
    def from_data(cls, data: Any, source: Path) -> TwinState:
        if not isinstance(data, dict):
            raise StateError(f"{source}: expected a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise StateError(f"{source}: format {show(data.get('format'))}; this gke-accel reads format {FORMAT}")
        problems: list[str] = []
        for key, kind in (("env", str), ("run_dir", str), ("kubeconfig", str), ("server", str)):
            if not isinstance(data.get(key), kind):
                problems.append(f"{key}: {show(data.get(key))} is not a {kind.__name__}")
        for key in ("started_at", "up_seconds"):
            if not _number(data.get(key)):
                problems.append(f"{key}: {show(data.get(key))} is not a finite number of 0 or more")
        if data.get("stopped_at") is not None and not _number(data.get("stopped_at")):
            problems.append(f"stopped_at: {show(data.get('stopped_at'))} is not a finite number of 0 or more")
        nodes = data.get("nodes", 0)
        if not isinstance(nodes, int) or isinstance(nodes, bool) or not 0 <= nodes <= 1_000_000:
            problems.append(f"nodes: {show(nodes)} is not a node count")
        releases = data.get("releases", [])
        if not isinstance(releases, list) or not all(isinstance(r, str) for r in releases):
            problems.append(f"releases: {show(releases)} is not a list of names")
        raw = data.get("processes")
        records: list[ProcessRecord] = []
        if not isinstance(raw, list):
            problems.append(f"processes: {raw!r} is not a list")
        else:
            for i, item in enumerate(raw):
                record = _record(item, f"processes[{i}]", problems)
                if record is not None:
                    records.append(record)
        if problems:
            raise StateError(f"{source}: " + "; ".join(problems))
        return cls(
            env=data["env"],
            run_dir=data["run_dir"],
            kubeconfig=data["kubeconfig"],
            server=data["server"],
            started_at=float(data["started_at"]),
            up_seconds=float(data["up_seconds"]),
            processes=tuple(records),
            nodes=int(data.get("nodes", 0)),
            releases=tuple(str(r) for r in data.get("releases", ())),
            stopped_at=data.get("stopped_at"),
        )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _record(item: Any, where: str, problems: list[str]) -> ProcessRecord | None:
    if not isinstance(item, dict):
        problems.append(f"{where}: {show(item)} is not an object")
        return None
    bad = [
        f"{where}.{key}: {show(item.get(key))} is not a {kind.__name__}"
        for key, kind in (("name", str), ("pid", int), ("binary", str), ("start_ticks", int))
        if not isinstance(item.get(key), kind) or isinstance(item.get(key), bool)
    ]
    if not bad and not 1 < item["pid"] < 2**22:  # /proc/sys/kernel/pid_max is at most 2^22
        bad.append(f"{where}.pid: {item['pid']} is not a process the twin can have started")
    if not bad and not is_twin_program(item["binary"]):
        bad.append(f"{where}.binary: {show(item['binary'])} is not a program the twin starts")
    problems.extend(bad)
    return None if bad else ProcessRecord(item["name"], item["pid"], item["binary"], item["start_ticks"])


def state_path(state_dir: Path) -> Path:
    return state_dir / STATE_FILE


def read_state(state_dir: Path) -> TwinState | None:
    """The state of the twin in ``state_dir``; None when no twin was ever started there. Read through the
    shared input guards: a regular file (a FIFO or device is refused, never opened for a blocking read),
    at most MAX_STATE_BYTES; a file that cannot be read or is not a state is a one-line StateError."""
    path = state_path(state_dir)
    if not os.path.lexists(path):
        return None
    try:
        text = read_text(path, limit=MAX_STATE_BYTES, what="a twin state file")
    except ConfigError as err:
        raise StateError("; ".join(i.render() for i in err.issues)) from None
    return TwinState.from_json(text, path)


def write_state(state_dir: Path, state: TwinState) -> Path:
    """Write atomically (a reader sees the old or the new file, never half of one); the temporary file is
    created new (never a FIFO or link left in its place)."""
    path = state_path(state_dir)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(state.to_json())
    os.replace(tmp, path)
    return path


def names_state_dir(record: ProcessRecord, state_dir: Path) -> bool:
    """The process's command line names a ``run-*`` folder of ``state_dir`` (every twin process does:
    etcd's data folder, the others' kubeconfig)."""
    marker = str(Path(state_dir).resolve()) + os.sep + "run-"
    return any(marker in arg for arg in cmdline(record.pid)[1:])


# ---- processes ----------------------------------------------------------------------------------
def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat from field 3 (state) on; None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return text[text.rindex(")") + 2 :].split()  # the command name may hold spaces and parentheses


def start_ticks(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[19]) if fields else None  # field 22 overall


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def is_running(record: ProcessRecord) -> bool:
    """The recorded process still runs: same PID, same start time, same binary, not a zombie."""
    fields = _stat(record.pid)
    if fields is None or fields[0] in ("Z", "X") or int(fields[19]) != record.start_ticks:
        return False
    argv = cmdline(record.pid)
    return bool(argv) and argv[0] == record.binary


def _wait_gone(record: ProcessRecord, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while True:  # a stopped child of ours is a zombie until its Popen waits: is_running says False then
        if not is_running(record):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def stop_process(record: ProcessRecord, timeout: float = 10.0) -> str:
    """TERM, then KILL after ``timeout`` s; only while ``is_running``. Returns what happened, one line."""
    if not is_running(record):
        return f"{record.name} (pid {record.pid}) was not running"
    with contextlib.suppress(ProcessLookupError):
        os.kill(record.pid, signal.SIGTERM)
    if _wait_gone(record, timeout):
        return f"{record.name} (pid {record.pid}) stopped"
    if is_running(record):
        with contextlib.suppress(ProcessLookupError):
            os.kill(record.pid, signal.SIGKILL)
    if _wait_gone(record, 5.0):
        return f"{record.name} (pid {record.pid}) killed after {timeout:.0f} s"
    return f"{record.name} (pid {record.pid}) is still running after SIGKILL"


def stop_processes(
    records: Sequence[ProcessRecord], on_line: Callable[[str], None] | None = None, timeout: float = 10.0
) -> list[ProcessRecord]:
    """Stop the records in reverse start order (controllers before the API server, etcd last);
    returns those still running afterwards (none, normally)."""
    for record in reversed(records):
        line = stop_process(record, timeout)
        if on_line is not None:
            on_line(line)
    return [r for r in records if is_running(r)]
