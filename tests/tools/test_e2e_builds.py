"""tools/ci/e2e_builds.sh (the build half of `make e2e`): every step visible, the first failed step
fails the script with its exit code, and a SKIP (no Go, exit 3) passes only outside CI. Run on a
scratch copy whose build scripts are stand-ins that print and exit as told."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STEPS = {  # stand-in path -> step name in the script's output
    "tools/k8s/build.sh": "kubernetes",
    "tools/terraform/install_terraform_shim.sh": "terraform-command",
    "tools/terraform/build_providers.sh": "kubernetes-provider",
    "tools/google_api/discovery.sh": "google-api",
    "tools/kueue/build.sh": "kueue",
    "tools/helm/build.sh": "helm",
}


def project(tmp_path: Path, exits: dict[str, int]) -> Path:
    (tmp_path / "tools" / "ci").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "ci" / "e2e_builds.sh", tmp_path / "tools" / "ci" / "e2e_builds.sh")
    for path in STEPS:
        script = tmp_path / path
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(f'#!/bin/sh\necho "{path} $*: building"\nexit {exits.get(path, 0)}\n')
        script.chmod(0o755)
    return tmp_path


def run(root: Path, *, go: bool = True, ci: bool = False) -> subprocess.CompletedProcess[str]:
    bindir = root / "bin"
    bindir.mkdir(exist_ok=True)
    if go:
        (bindir / "go").write_text("#!/bin/sh\nexit 0\n")
        (bindir / "go").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GKE_ACCEL_E2E_REQUIRED")}
    env.update(PATH=f"{bindir}:/usr/bin:/bin", GO_BIN_DIR=str(root / "no-go-here"))
    if ci:
        env["GKE_ACCEL_E2E_REQUIRED"] = "1"
    cmd = ["bash", str(root / "tools" / "ci" / "e2e_builds.sh"), ".venv"]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)


def test_every_step_runs_and_says_so(tmp_path: Path) -> None:
    proc = run(project(tmp_path, {}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in (*STEPS.values(), "google-provider", "jobset", "helm-provider"):
        assert f"e2e build: {name} ok (" in proc.stdout
    assert "tools/terraform/build_providers.sh --only google: building" in proc.stdout
    assert "tools/kueue/build.sh jobset: building" in proc.stdout
    assert "tools/terraform/build_providers.sh --only helm: building" in proc.stdout


def test_a_failed_build_fails_with_its_exit_code_and_stops(tmp_path: Path) -> None:
    proc = run(project(tmp_path, {"tools/kueue/build.sh": 1}))
    assert proc.returncode == 1
    assert "e2e build: kueue FAILED (exit 1)" in proc.stderr
    assert "jobset" not in proc.stdout  # nothing after the failed step


@pytest.mark.parametrize("ci", [False, True])
def test_a_step_that_cannot_build_here_skips_only_outside_ci(tmp_path: Path, ci: bool) -> None:
    proc = run(project(tmp_path, {"tools/terraform/build_providers.sh": 3}), ci=ci)
    if ci:
        assert proc.returncode == 3 and "e2e build: kubernetes-provider FAILED (exit 3)" in proc.stderr
    else:
        assert proc.returncode == 0 and "e2e build: kubernetes-provider SKIP (exit 3" in proc.stdout


@pytest.mark.parametrize("ci", [False, True])
def test_without_go_nothing_is_built_and_ci_fails(tmp_path: Path, ci: bool) -> None:
    proc = run(project(tmp_path, {}), go=False, ci=ci)
    assert "building" not in proc.stdout
    if ci:
        assert proc.returncode == 1 and "no Go toolchain on PATH (required in CI" in proc.stderr
    else:
        assert proc.returncode == 0 and "e2e build: SKIP: no Go toolchain" in proc.stdout
