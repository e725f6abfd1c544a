"""E2, E6, E8: the twin owns its state folder. A second ``twin up`` is refused while the first holds the
folder's lock; ``twin down`` stops the twin's processes found by what they are (a twin program running
with a command line that names the folder) even when ``twin.json`` is gone or hostile; a hostile state
file is one line; Ctrl-C during ``twin up`` is exit 130 and one line. Processes here are real (a Python
sleep running under a twin program's name, see fakes.py); tests/e2e/test_twin_ownership_on_server.py does the
same with the real etcd and kube-apiserver."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gke_accel.cli.main import main
from gke_accel.twin.state_lock import find_processes
from security.reproduce import CONFIG, run
from twin.fakes import fake_program, wait_argv0


@pytest.fixture
def orphans(tmp_path: Path) -> Iterator[tuple[Path, list[subprocess.Popen[bytes]]]]:
    """A state folder with no state file and two twin processes running from it."""
    state = tmp_path / "s"
    (state / "run-1").mkdir(parents=True)
    names = ("etcd", "kube-apiserver")
    procs = [fake_program(tmp_path / "bin", n, state) for n in names]
    for name, proc in zip(names, procs, strict=True):
        wait_argv0(proc, str(tmp_path / "bin" / name))
    try:
        yield state, procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def test_e6_down_stops_the_twin_s_processes_after_its_state_file_was_deleted(
    orphans: tuple[Path, list[subprocess.Popen[bytes]]],
) -> None:
    state, (etcd, api) = orphans
    status = run("twin", "status", "--state", str(state))
    assert status.code == 1 and "but 2 twin process(es) run from it" in status.out
    assert f"etcd (pid {etcd.pid})" in status.out and "twin down --state" in status.out
    up = run("twin", "up", "--env", "staging", "--state", str(state), "--config-dir", CONFIG)
    assert up.code == 1 and "twin processes without a state file already run from" in up.one_error()
    assert f"{etcd.pid}" in up.one_error() and etcd.poll() is None  # refused before anything started
    down = run("twin", "down", "--state", str(state))
    assert down.code == 0, down.err
    assert f"  kube-apiserver (pid {api.pid}) stopped" in down.out and f"  etcd (pid {etcd.pid}) stopped" in down.out
    assert "stopped 2 twin process(es) found by their command lines" in down.out
    assert etcd.wait(timeout=5) == -15 and api.wait(timeout=5) == -15
    assert find_processes(state) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [("fifo", "is not a regular file"), ("zero", "is not a regular file"), ("{garbage", "is not JSON"),
     ('{"format": 1, "format": 1}', "repeats the key 'format'")],
)  # fmt: skip
def test_e6_a_hostile_state_file_is_one_line_and_down_still_stops_the_twin(
    orphans: tuple[Path, list[subprocess.Popen[bytes]]], content: str, message: str
) -> None:
    state, (etcd, api) = orphans
    path = state / "twin.json"
    if content == "fifo":
        os.mkfifo(path)
    elif content == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text(content)
    status = run("twin", "status", "--state", str(state), timeout=20)
    assert status.code == 2 and message in status.one_error() and "2 twin process(es) run from it" in status.err
    assert status.seconds < 10 and status.max_rss_mb < 300
    down = run("twin", "down", "--state", str(state), timeout=30)
    line = down.one_error()
    assert down.code == 2 and message in line and "stopped 2 twin process(es) found by their command lines" in line
    assert etcd.wait(timeout=5) == -15 and api.wait(timeout=5) == -15


def test_e6_a_state_file_naming_another_program_is_refused(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "twin.json").write_text(
            '{"format": 1, "env": "dev", "run_dir": "r", "kubeconfig": "k", "server": "s", "started_at": 1, '
            f'"up_seconds": 1, "processes": [{{"name": "etcd", "pid": {sleeper.pid}, "binary": "/usr/bin/sleep", '
            '"start_ticks": 1}]}'
        )
        down = run("twin", "down", "--state", str(tmp_path))
        assert down.code == 2 and "'/usr/bin/sleep' is not a program the twin starts" in down.one_error()
        assert sleeper.poll() is None  # never signalled
    finally:
        sleeper.kill()
        sleeper.wait()


def test_e2_a_second_up_and_a_down_are_refused_while_up_holds_the_folder(tmp_path: Path) -> None:
    state = tmp_path / "s"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path\n"
         "from gke_accel.twin.state_lock import state_lock\n"
         "with state_lock(Path(sys.argv[1]), 'up'):\n    print('held', flush=True); time.sleep(60)", str(state)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        for argv in (("up", "--env", "staging", "--config-dir", CONFIG), ("down",)):
            result = run("twin", *argv, "--state", str(state))
            line = result.one_error()
            assert result.code == 1 and f"{state} is in use by `gke-accel twin up` (pid {holder.pid})" in line
            assert result.seconds < 15
    finally:
        holder.kill()
        holder.wait()
    # the kernel released the lock with the holder: the folder is free again
    result = run("twin", "down", "--state", str(state))
    assert result.code == 0 and result.out.startswith(f"no twin in {state.resolve()}")


def test_e8_ctrl_c_during_up_is_130_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gke_accel.twin import local_twin

    state = tmp_path / "s"
    (state / "run-20261204T000000").mkdir(parents=True)

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(local_twin.Twin, "start", interrupted)
    code = main(["twin", "up", "--env", "staging", "--state", str(state), "--config-dir", CONFIG])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130
    assert err == [f"twin up interrupted: everything it started is stopped; its logs stay in "
                   f"{state.resolve() / 'run-20261204T000000'}"]  # fmt: skip


def test_e8_ctrl_c_while_a_child_fails_is_still_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C reaches `gke-accel synth` (a child) first: its failure is the interrupt's, exit 130."""
    from gke_accel.cli import main as main_module
    from gke_accel.twin import local_twin

    def child_failed(*_: object, **__: object) -> None:
        main_module._Interrupt.seen = True
        raise RuntimeError("gke-accel synth exited -2: ")

    monkeypatch.setattr(local_twin.Twin, "start", child_failed)
    try:
        code = main(["twin", "up", "--env", "staging", "--state", str(tmp_path), "--config-dir", CONFIG])
    finally:
        main_module._Interrupt.seen = False
    assert code == 130 and capsys.readouterr().err.startswith("twin up interrupted: everything it started is stopped")


def test_e8_a_start_failure_is_one_line_naming_the_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gke_accel.twin import local_twin

    def fails(*_: object, **__: object) -> None:
        raise RuntimeError("local cluster failed to start: etcd exited with 1\n--- etcd.log (last 15 lines)\n" * 3)

    monkeypatch.setattr(local_twin.Twin, "start", fails)
    code = main(["twin", "up", "--env", "staging", "--state", str(tmp_path), "--config-dir", CONFIG])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and "did not start" in line and "etcd exited with 1" in line and "logs: " in line


def test_a_lock_is_released_by_the_kernel_when_its_holder_is_killed(tmp_path: Path) -> None:
    from gke_accel.twin.state_lock import StateBusy, state_lock

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path\n"
         "from gke_accel.twin.state_lock import state_lock\n"
         "with state_lock(Path(sys.argv[1]), 'up'):\n    print('held', flush=True); time.sleep(60)", str(tmp_path)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
    with pytest.raises(StateBusy), state_lock(tmp_path, "down"):
        pass
    holder.kill()
    holder.wait()
    started = time.monotonic()
    with state_lock(tmp_path, "down"):
        assert time.monotonic() - started < 1


def test_a_start_that_fails_before_any_process_leaves_no_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gke_accel.twin import local_twin

    def no_controllers(env: str, run_dir: Path, **_: object) -> None:
        (run_dir / "synth").mkdir()  # what synth wrote before the controllers were found missing
        raise local_twin.MissingTools("controller binaries missing (kueue): run `make twin-tools`")

    monkeypatch.setattr(local_twin, "check_tools", lambda: None)
    monkeypatch.setattr(local_twin.EnvironmentRun, "launch", no_controllers)
    with pytest.raises(local_twin.TwinError, match="controller binaries missing"):
        local_twin.Twin.start("staging", tmp_path / "s", config_dir=Path(CONFIG))
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["twin.lock"]
