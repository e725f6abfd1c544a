"""``gke-accel twin up/down/status`` messages and exit codes where no Kubernetes binary is needed:
missing tools, no twin, a broken state file, stopping recorded processes (``sleep``s started here)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gke_accel.cli.main import main
from gke_accel.twin import binaries as twin_binaries
from gke_accel.twin.state import ProcessRecord, TwinState, write_state

REPO = Path(__file__).resolve().parents[2]
SLEEP = shutil.which("sleep") or "/bin/sleep"


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setattr(twin_binaries, "CACHE", cache)
    return cache


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_up_without_binaries_names_the_command_that_builds_them(
    tmp_path: Path, empty_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "twin", "up", "--env", "staging", "--state", str(tmp_path / "s"),
                          "--config-dir", str(REPO / "config"))  # fmt: skip
    assert code == 1 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: Kubernetes binaries missing in {empty_cache}/k8s/")
    assert "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok" in line
    assert "run `make twin-tools`" in line


def test_up_with_an_unknown_environment_lists_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config"  # the shipped three: config/ may hold a README `init qa`'s qa.yaml
    config.mkdir()
    for env in ("dev", "staging", "prod"):
        shutil.copy(REPO / "config" / f"{env}.yaml", config / f"{env}.yaml")
    code, _, err = _run(capsys, "twin", "up", "--env", "stagin", "--state", str(tmp_path / "s"),
                        "--config-dir", str(config))  # fmt: skip
    assert code == 1
    assert f"--env 'stagin': no {config / 'stagin.yaml'}; environments there: dev, prod, staging" in err


def test_up_takes_one_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "twin", "up", "--env", "dev", "--env", "staging", "--state", str(tmp_path))
    assert code == 1 and "--env: one environment per twin, got dev, staging" in err


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_per_pool_is_max_or_a_positive_count(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["twin", "up", "--env", "dev", "--per-pool", value])
    assert exc.value.code == 2
    assert f"{value!r} is neither 'max' nor a node count >= 1" in capsys.readouterr().err


def test_down_and_status_without_a_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "twin", "down", "--state", str(tmp_path)) == (
        0,
        f"no twin in {tmp_path}: nothing to stop\n",
        "",
    )
    code, out, _ = _run(capsys, "twin", "status", "--state", str(tmp_path))
    assert code == 1 and out.startswith(f"no twin in {tmp_path}: start one with `gke-accel twin up --env E")


def test_a_broken_state_file_is_one_error_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "twin.json").write_text('{"format": 1, "env": 3}')
    for action in ("down", "status"):
        code, out, err = _run(capsys, "twin", action, "--state", str(tmp_path))
        assert code == 1 and out == ""
        assert err.startswith(f"error: {tmp_path / 'twin.json'}: env: 3 is not a str")


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[Path, list[subprocess.Popen[bytes]]]]:
    """A state folder recording two running ``sleep``s as the twin's etcd and kube-apiserver."""
    procs = [subprocess.Popen([SLEEP, "300"]) for _ in range(2)]
    records = tuple(ProcessRecord.of(n, p.pid, SLEEP) for n, p in zip(("etcd", "kube-apiserver"), procs, strict=True))
    write_state(tmp_path, TwinState("staging", str(tmp_path / "run-1"), str(tmp_path / "kc"),
                                    "https://127.0.0.1:1", 1.0, 2.0, records))  # fmt: skip
    try:
        yield tmp_path, procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def test_status_then_down_then_down_again(
    recorded: tuple[Path, list[subprocess.Popen[bytes]]], capsys: pytest.CaptureFixture[str]
) -> None:
    state, (etcd, api) = recorded
    code, out, _ = _run(capsys, "twin", "status", "--state", str(state))
    assert code == 0
    assert out.splitlines()[0] == f"twin of staging in {state}: running (2/2 processes) on https://127.0.0.1:1"
    assert out.splitlines()[-1] == f"export KUBECONFIG={state / 'kc'}"

    code, out, _ = _run(capsys, "twin", "down", "--state", str(state))
    assert code == 0
    assert out.splitlines() == [
        f"  kube-apiserver (pid {api.pid}) stopped",
        f"  etcd (pid {etcd.pid}) stopped",
        f"twin of staging stopped; its data and logs stay in {state / 'run-1'} (delete the folder to free the space)",
    ]
    assert etcd.wait(timeout=5) == -15 and api.wait(timeout=5) == -15
    assert json.loads((state / "twin.json").read_text())["stopped_at"] is not None
    assert sorted(p.name for p in state.iterdir()) == ["twin.json"]  # nothing removed, nothing added

    code, out, _ = _run(capsys, "twin", "down", "--state", str(state))
    assert code == 0 and out.splitlines()[-1] == f"twin of staging in {state} was already stopped"
    code, out, _ = _run(capsys, "twin", "status", "--state", str(state))
    assert code == 1 and "stopped (0/2 processes)" in out and "export KUBECONFIG" not in out


def test_the_installed_command_prints_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "GKE_ACCEL_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(REPO / "constructs")}
    gke_accel = Path(sys.executable).parent / "gke-accel"
    out = subprocess.run([str(gke_accel), "twin", "up", "--env", "dev", "--state", str(tmp_path / "s")],
                         capture_output=True, text=True, env=env, cwd=REPO, check=False)  # fmt: skip
    assert out.returncode == 1
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert "run `make twin-tools`" in out.stderr
