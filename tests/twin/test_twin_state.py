"""The twin's state file and stopping by PID (no Kubernetes binaries: the processes are ``sleep``s
this test starts itself, so what /proc says about them is known independently of the code)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gke_accel.twin.state import (
    ProcessRecord,
    StateError,
    TwinState,
    is_running,
    read_state,
    stop_process,
    stop_processes,
    write_state,
)

SLEEP = shutil.which("sleep") or "/bin/sleep"


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([SLEEP, "300"])
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _state(*records: ProcessRecord) -> TwinState:
    return TwinState(
        env="staging",
        run_dir="/tmp/x/run-1",
        kubeconfig="/tmp/x/run-1/k8s/admin.kubeconfig",
        server="https://127.0.0.1:6443",
        started_at=1796170000.0,
        up_seconds=52.0,
        processes=records,
        nodes=15,
        releases=("jobset", "kueue"),
    )


def test_the_state_file_round_trips(tmp_path: Path) -> None:
    state = _state(ProcessRecord("etcd", 4242, "/c/bin/etcd", 123))
    write_state(tmp_path, state)
    on_disk = json.loads((tmp_path / "twin.json").read_text())
    assert on_disk["processes"] == [{"name": "etcd", "pid": 4242, "binary": "/c/bin/etcd", "start_ticks": 123}]
    assert on_disk["format"] == 1 and on_disk["stopped_at"] is None
    assert read_state(tmp_path) == state


def test_no_state_file_means_no_twin(tmp_path: Path) -> None:
    assert read_state(tmp_path) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "twin.json: is not JSON"),
        ("[]", "expected a JSON object, got list"),
        ('{"format": 7}', "format 7; this gke-accel reads format 1"),
    ],
)
def test_an_unreadable_state_file_is_refused_with_its_path(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "twin.json").write_text(text)
    with pytest.raises(StateError, match=message) as err:
        read_state(tmp_path)
    assert str(tmp_path / "twin.json") in str(err.value)


def test_every_bad_field_is_named_at_once(tmp_path: Path) -> None:
    data = json.loads(_state(ProcessRecord("etcd", 4242, "/c/bin/etcd", 1)).to_json())
    data["server"] = 6443
    data["processes"] = [{"name": "etcd", "pid": "4242", "binary": "/c/bin/etcd", "start_ticks": 1}, {"name": "x"}, 5]
    (tmp_path / "twin.json").write_text(json.dumps(data))
    with pytest.raises(StateError) as err:
        read_state(tmp_path)
    text = str(err.value)
    for expected in (
        "server: 6443 is not a str",
        "processes[0].pid: '4242' is not a int",
        "processes[1].pid: null is not a int",
        "processes[1].binary: null",
        "processes[2]: 5 is not an object",
    ):
        assert expected in text


def test_pid_1_is_never_a_twin_process(tmp_path: Path) -> None:
    data = json.loads(_state(ProcessRecord("etcd", 1, "/sbin/init", 1)).to_json())
    (tmp_path / "twin.json").write_text(json.dumps(data))
    with pytest.raises(StateError, match=r"processes\[0\].pid: 1 is not a process the twin can have started"):
        read_state(tmp_path)


def test_a_recorded_process_runs_while_pid_binary_and_start_time_match(sleeper: subprocess.Popen[bytes]) -> None:
    record = ProcessRecord.of("sleep", sleeper.pid, SLEEP)
    assert is_running(record)
    assert not is_running(dataclasses.replace(record, binary="/c/bin/etcd"))  # the PID runs another program
    assert not is_running(dataclasses.replace(record, start_ticks=record.start_ticks - 1))  # PID reused


def test_a_mismatched_record_is_never_signalled(sleeper: subprocess.Popen[bytes]) -> None:
    record = ProcessRecord.of("etcd", sleeper.pid, SLEEP)
    other = dataclasses.replace(record, binary="/c/bin/etcd")
    assert stop_process(other) == f"etcd (pid {sleeper.pid}) was not running"
    time.sleep(0.2)
    assert sleeper.poll() is None  # still alive


def test_stop_terminates_the_process_and_is_idempotent(sleeper: subprocess.Popen[bytes]) -> None:
    record = ProcessRecord.of("etcd", sleeper.pid, SLEEP)
    assert stop_process(record) == f"etcd (pid {sleeper.pid}) stopped"
    assert sleeper.wait(timeout=5) == -15  # SIGTERM
    assert stop_process(record) == f"etcd (pid {sleeper.pid}) was not running"


def test_a_process_ignoring_term_is_killed(tmp_path: Path) -> None:
    proc = subprocess.Popen(["sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"])
    try:
        time.sleep(0.3)
        record = ProcessRecord.of("stubborn", proc.pid, "sh")
        assert stop_process(record, timeout=1) == f"stubborn (pid {proc.pid}) killed after 1 s"
        assert proc.wait(timeout=5) == -9
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_processes_stop_in_reverse_start_order() -> None:
    procs = [subprocess.Popen([SLEEP, "300"]) for _ in range(3)]
    try:
        records = [
            ProcessRecord.of(n, p.pid, SLEEP) for n, p in zip(("etcd", "kube-apiserver", "kueue"), procs, strict=True)
        ]
        lines: list[str] = []
        assert stop_processes(records, lines.append) == []
        assert [line.split()[0] for line in lines] == ["kueue", "kube-apiserver", "etcd"]
        assert all(p.wait(timeout=5) == -15 for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
