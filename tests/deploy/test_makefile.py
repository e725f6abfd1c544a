"""Makefile targets as a user runs them: `make clean` never deletes Terraform state (and refuses
when state sits in generated output); `make review` exits 0 on a review with changes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "tools" / "lib", tmp_path / "tools" / "lib")  # setup's heartbeat
    return tmp_path


def make(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    return subprocess.run(["make", "-s", *args], cwd=project, capture_output=True, text=True, env=env, check=False)


def test_clean_removes_output_and_keeps_state(project: Path) -> None:
    stack = project / "cdktf.out" / "stacks" / "dev"
    (stack / ".terraform").mkdir(parents=True)
    (stack / "cdk.tf.json").write_text("{}")
    (stack / ".terraform" / "terraform.tfstate").write_text("{}")  # backend metadata, not state
    state = project / "terraform-state" / "dev.tfstate"
    state.parent.mkdir()
    state.write_text('{"version": 4}')
    proc = make(project, "clean")
    assert proc.returncode == 0, proc.stderr
    assert not (project / "cdktf.out").exists()
    assert state.read_text() == '{"version": 4}'


def test_clean_refuses_when_state_is_inside_the_output(project: Path) -> None:
    old = project / "cdktf.out" / "stacks" / "dev" / "terraform.dev.tfstate"
    old.parent.mkdir(parents=True)
    old.write_text('{"version": 4}')
    proc = make(project, "clean")
    assert proc.returncode != 0
    assert "refusing" in proc.stderr and "cdktf.out/stacks/dev/terraform.dev.tfstate" in proc.stderr
    assert "terraform-state/" in proc.stderr
    assert old.read_text() == '{"version": 4}'


def _fake_venv(project: Path, exit_code: int) -> None:
    bin_dir = project / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    cli = bin_dir / "gke-accel"
    cli.write_text(f'#!/bin/sh\necho "review $*"\nexit {exit_code}\n')
    cli.chmod(0o755)
    (project / "venv" / ".installed-stamp").touch()  # newer than pyproject.toml: setup is done


@pytest.mark.parametrize(("cli_exit", "make_ok"), [(0, True), (2, True), (1, False), (3, False)])
def test_make_review_exit_code(project: Path, cli_exit: int, make_ok: bool) -> None:
    _fake_venv(project, cli_exit)
    proc = make(project, "review", "VENV=venv", "BASE=HEAD~1")
    assert "review --base HEAD~1" in proc.stdout
    assert (proc.returncode == 0) is make_ok, (proc.returncode, proc.stderr)


def test_deploy_without_env_says_how_before_installing_anything(project: Path) -> None:
    (project / "config").mkdir()
    for env in ("dev", "prod"):
        (project / "config" / f"{env}.yaml").write_text("")
    proc = make(project, "deploy")
    assert proc.returncode != 0
    assert "usage: make deploy ENV=<environment> (one of: dev prod)" in proc.stderr
    assert not (project / "node_modules").exists() and "npm" not in proc.stdout


def test_deploy_puts_node_modules_bin_first_on_path() -> None:
    text = (ROOT / "Makefile").read_text()
    recipe = text.split("deploy destroy:", 1)[1].split("\n\n", 1)[0]
    assert 'PATH="$(CURDIR)/node_modules/.bin:' in recipe and "npx $$cli $@ $(ENV)" in recipe


@pytest.mark.parametrize("ci", [{}, {"GKE_ACCEL_E2E_REQUIRED": "1"}, {"CI": "true"}])
def test_validate_terraform_that_validated_nothing_fails_in_ci(project: Path, ci: dict[str, str]) -> None:
    tools = project / "tools" / "terraform"
    tools.mkdir(parents=True)
    stand_ins = {"install_terraform_shim.sh": "exit 0", "build_providers.sh": "echo 'SKIP: no Go' >&2; exit 3"}
    for name, body in stand_ins.items():
        (tools / name).write_text(f"#!/bin/sh\n{body}\n")
        (tools / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    env = {k: v for k, v in env.items() if k not in ("CI", "GKE_ACCEL_E2E_REQUIRED")} | ci
    cmd = ["make", "-s", "-o", "synth", "validate-terraform"]  # synth assumed done: only the provider step runs
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, env=env, check=False)
    if ci:
        assert proc.returncode != 0
        assert "validate-terraform: FAILED: the providers cannot be built here" in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert "validate-terraform: SKIPPED: the providers cannot be built here" in proc.stdout


def _logging_venv(project: Path) -> Path:
    """A venv whose python and gke-accel only log how they were called."""
    log = project / "calls.log"
    bin_dir = project / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "gke-accel", "pytest"):
        (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\n')
        (bin_dir / name).chmod(0o755)
    return log


def test_first_synth_installs_only_what_synth_needs_and_says_so(project: Path) -> None:
    log = _logging_venv(project)
    proc = make(project, "synth", "VENV=venv")
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text().splitlines()
    assert "python -m pip install --progress-bar off -e .[scan]" in calls
    assert not [c for c in calls if "[dev]" in c]
    assert calls[-3:] == ["gke-accel validate", "gke-accel synth", "gke-accel scan"]
    assert "installing gke-accel, the CDK framework, its provider bindings and checkov" in proc.stdout
    assert "setup: done in " in proc.stdout
    log.write_text("")
    assert make(project, "synth", "VENV=venv").returncode == 0
    assert "pip" not in log.read_text() and "installing" not in make(project, "synth", "VENV=venv").stdout


def test_a_slow_setup_says_what_pip_is_on_while_it_works(project: Path) -> None:
    """N6: the first setup was silent for 232 s. A pip that takes a while gets a line per interval with
    the newest line of its output; the estimate is the measured one."""
    log = _logging_venv(project)
    python = project / "venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\necho "python $*" >> {log}\necho "Collecting cdktn==0.24.0"\nsleep 3\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))} | {"HEARTBEAT_SECONDS": "1"}
    proc = subprocess.run(
        ["make", "-s", "setup-synth", "VENV=venv"], cwd=project, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    beats = [line for line in proc.stdout.splitlines() if line.startswith("setup: still working (")]
    assert len(beats) >= 2 and all(line.endswith("): Collecting cdktn==0.24.0") for line in beats)
    assert "about 2-5 minutes" in proc.stdout
    # a failing pip: its last lines, and make fails
    python.write_text('#!/bin/sh\necho "ERROR: No matching distribution found for cdktn==9"\nexit 1\n')
    (project / "venv" / ".installed-synth-stamp").unlink(missing_ok=True)
    proc = subprocess.run(
        ["make", "-s", "setup-synth", "VENV=venv"], cwd=project, capture_output=True, text=True, env=env
    )
    assert proc.returncode != 0 and "No matching distribution found for cdktn==9" in proc.stderr


def test_make_test_installs_the_toolchain_and_synth_then_installs_nothing(project: Path) -> None:
    log = _logging_venv(project)
    assert make(project, "test", "VENV=venv").returncode == 0
    assert "python -m pip install --progress-bar off -e .[dev]" in log.read_text()
    log.write_text("")
    assert make(project, "synth", "VENV=venv").returncode == 0
    assert "pip" not in log.read_text()


def test_deploy_runs_the_preflight_before_npm_or_synth(project: Path) -> None:
    (project / "config").mkdir()
    (project / "config" / "dev.yaml").write_text("")
    log = project / "calls.log"
    bin_dir = project / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text("#!/bin/sh\n")
    cli = bin_dir / "gke-accel"
    cli.write_text(
        f'#!/bin/sh\necho "gke-accel $*" >> {log}\n[ "$1" = preflight ] && {{ echo "fix: gcloud x" >&2; exit 1; }}\n'
    )
    for path in (bin_dir / "python", cli):
        path.chmod(0o755)
    (project / "venv" / ".installed-stamp").touch()
    proc = make(project, "deploy", "ENV=dev", "VENV=venv")
    assert proc.returncode != 0
    assert log.read_text().splitlines() == ["gke-accel preflight --env dev"]
    assert "fix: gcloud x" in proc.stderr
    assert not (project / "node_modules").exists() and "npm" not in proc.stdout


def test_make_cli_and_deploy_choose_the_cli_the_node_runs() -> None:
    text = (ROOT / "Makefile").read_text()
    # cdktn-cli 0.24 declares engines node >= 22.19 (its package.json); the check and the message agree.
    assert "a>22||(a==22&&b>=19)" in text and "CDKTN_NODE := 22.19" in text
    assert "npm ci --omit=optional" in text  # cdktn-cli is optional: not installed on an older Node
    package = (ROOT / "package.json").read_text()
    assert '"optionalDependencies": {\n    "cdktn-cli"' in package
