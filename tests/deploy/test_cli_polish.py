"""The CLI as a user meets it: --version, help text with examples, no abbreviation guessing, fast
failures with clear messages (review on a config error or an unknown base ref, scan without checkov)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from gke_accel import __version__
from gke_accel.cli.main import build_parser, main
from helpers import base_config, set_path, to_yaml

ROOT = Path(__file__).resolve().parents[2]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"gke-accel {__version__}"


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_every_subcommand_has_a_one_line_description_and_an_example(name: str) -> None:
    sub = _subcommands()[name]
    text = sub.format_help()
    assert sub.description, f"{name}: no description"
    first = sub.description.splitlines()[0]
    assert first and len(first) <= 100, first
    assert f"\n{first}\n" in text
    assert "examples:\n" in text and f"  gke-accel {name}" in text.split("examples:\n", 1)[1], text
    assert sub.allow_abbrev is False


def test_top_level_help_lists_each_subcommand_with_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name, sub in _subcommands().items():
        assert name in out and (sub.description or "").splitlines()[0][:40] in out


def test_no_abbreviation_guessing(capsys: pytest.CaptureFixture[str]) -> None:
    # lint has --config-dir but no --config: a prefix must not be read as the longer option.
    with pytest.raises(SystemExit) as info:
        main(["lint", "--env", "dev", "--config", "config/dev.yaml", "job.yaml"])
    assert info.value.code == 2
    assert "unrecognized arguments: --config" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["validate", "--config-d", "config"])
    assert info.value.code == 2
    # the full option name still works
    assert main(["validate", "--config-dir", str(ROOT / "config")]) == 0


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A git repository with one valid environment committed."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "test.yaml").write_text(to_yaml(base_config()))
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init")
    return tmp_path


def _run_cli(cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    code = "import sys; from gke_accel.cli.main import main; sys.exit(main(sys.argv[1:]))"
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=False)
    return proc, time.perf_counter() - started


def test_review_fails_fast_on_a_config_error(repo: Path) -> None:
    bad = set_path(base_config(), "tpu_pools[0].topology", "3x3")
    (repo / "config" / "test.yaml").write_text(to_yaml(bad))
    proc, seconds = _run_cli(repo, "review", "--base", "main")
    assert proc.returncode == 1, proc.stderr  # 2 means "changes" for review; a config error is an error
    assert "tpu_pools[0].topology: '3x3' is not valid for v5e" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert seconds < 10  # validated before anything is synthesized (a synth loads bindings: 10-80 s)


def test_review_names_an_unknown_base_ref(repo: Path) -> None:
    proc, seconds = _run_cli(repo, "review", "--base", "origin/nope")
    assert proc.returncode == 1
    assert "base ref 'origin/nope' is not a commit in this clone" in proc.stderr
    assert "git fetch origin nope" in proc.stderr and "Traceback" not in proc.stderr
    assert seconds < 10


def test_scan_without_checkov_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    stack = tmp_path / "stacks" / "dev"
    stack.mkdir(parents=True)
    (stack / "cdk.tf.json").write_text("{}")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "checkov" else real(name, *a))
    assert main(["scan", "--outdir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "scan: checkov is not installed" in err and "pip install" in err
    # N15: a wheel user has no `.` to install from; the package's scan extra is the command
    assert "pip install 'gke-accel[scan]'" in err and "[dev]" not in err
    assert "scan" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_progress_on_a_terminal_and_silent_otherwise() -> None:
    import io

    from gke_accel.cli.progress import Progress

    quiet = io.StringIO()
    p = Progress(quiet)  # a StringIO is not a TTY
    p.step("loading")
    with p.long_step("bindings"):
        pass
    assert quiet.getvalue() == ""
    loud = io.StringIO()
    p = Progress(loud, enabled=True)
    p.step("building stack dev")
    with p.long_step("loading bindings"):
        time.sleep(1.1)  # the ticker rewrites the line once a second
    text = loud.getvalue()
    assert "] building stack dev\n" in text
    assert "\r[" in text and "loading bindings done in 1." in text and text.endswith("s\n")


def test_exit_now_flushes_and_keeps_the_exit_code() -> None:
    code = "import sys; from gke_accel.cli.progress import exit_now; sys.stdout.write('partial'); exit_now(3)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 3 and proc.stdout == "partial"
