"""``simulate`` without ``state``: the folder it makes for the twin is kept, and named, when the run
fails (its logs say why); a run that ends well removes it (tests/e2e/test_simulate_cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_accel.simulate import session
from gke_accel.simulate.session import Options, simulate
from gke_accel.twin.local_twin import TwinError

ROOT = Path(__file__).resolve().parents[2]


def test_a_twin_that_fails_to_start_keeps_its_folder_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))

    def failing(env: str, state: Path, config_dir: Path, on_step: Any) -> Any:
        (state / "kueue.log").write_text("kueue: webhook port in use\n")
        raise TwinError("kueue did not start")

    monkeypatch.setattr(session, "start_twin", failing)
    said: list[str] = []
    with pytest.raises(TwinError):
        simulate("staging", [], Options(), config_dir=ROOT / "config", on_step=said.append)
    (kept,) = tmp_path.iterdir()
    assert kept.name.startswith("gke-accel-simulate-staging-")
    assert (kept / "kueue.log").read_text() == "kueue: webhook port in use\n"
    assert said == [f"the twin's state and logs are kept in {kept}"]


def test_a_state_folder_the_caller_gave_is_left_to_the_caller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "start_twin", lambda *a: (_ for _ in ()).throw(TwinError("no binaries")))
    said: list[str] = []
    with pytest.raises(TwinError):
        simulate("staging", [], Options(), config_dir=ROOT / "config", state=tmp_path / "mine", on_step=said.append)
    assert said == []  # the caller chose the folder and knows where it is
