"""Both frameworks synthesize the same stacks: every resource, data source, output, provider block
and backend is identical; only the framework version in the metadata and the provider pins differ.

Runs where the other framework's Python is given in GKE_ACCEL_COMPARE_PYTHON (`make
test-other-framework` sets it): this process synthesizes with its framework, that one with the other.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gke_accel.frameworks import FRAMEWORKS, choose

ROOT = Path(__file__).resolve().parents[2]
OTHER_PYTHON = os.environ.get("GKE_ACCEL_COMPARE_PYTHON", "")
ENVIRONMENTS = ("dev", "staging", "prod")

pytestmark = pytest.mark.skipif(not OTHER_PYTHON, reason="GKE_ACCEL_COMPARE_PYTHON not set (make test-other-framework)")


def normalized(doc: dict[str, Any]) -> dict[str, Any]:
    """The stack without the framework version and provider version pins; provider sources in full."""
    out = copy.deepcopy(doc)
    out["//"]["metadata"].pop("version")
    for provider in out["terraform"]["required_providers"].values():
        provider.pop("version")
        if "/" not in provider["source"]:
            provider["source"] = f"hashicorp/{provider['source']}"
    return out


def test_normalized_ignores_only_versions_and_the_short_provider_source() -> None:
    doc = {
        "//": {"metadata": {"version": "0.21.0", "stackName": "dev"}},
        "terraform": {"required_providers": {"google": {"source": "google", "version": "6.50.0"}}},
        "resource": {"google_container_cluster": {"c": {"name": "a"}}},
    }
    other = copy.deepcopy(doc)
    other["//"]["metadata"]["version"] = "0.24.0"
    other["terraform"]["required_providers"]["google"] = {"source": "hashicorp/google", "version": "8.7.0"}
    assert normalized(doc) == normalized(other)
    other["resource"]["google_container_cluster"]["c"]["name"] = "b"
    assert normalized(doc) != normalized(other)


@pytest.fixture(scope="module")
def other_stacks(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    other = next(f for f in FRAMEWORKS.values() if f is not choose())
    out = tmp_path_factory.mktemp("other-framework")
    env = {**os.environ, "GKE_ACCEL_FRAMEWORK": other.name}
    proc = subprocess.run(
        [OTHER_PYTHON, "-m", "gke_accel.cli.main", "synth", "--outdir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return other.name, out / "stacks"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_both_frameworks_synthesize_the_same_stack(
    env: str, shipped_stacks: Path, other_stacks: tuple[str, Path]
) -> None:
    other_name, other_dir = other_stacks
    ours = json.loads((shipped_stacks / env / "cdk.tf.json").read_text())
    theirs = json.loads((other_dir / env / "cdk.tf.json").read_text())
    assert normalized(ours) == normalized(theirs)
    # What was ignored is what each framework's bindings declare.
    for doc, framework in ((ours, choose()), (theirs, FRAMEWORKS[other_name])):
        pins = {name: p["version"] for name, p in doc["terraform"]["required_providers"].items()}
        expected = {"google": framework.google_provider, "kubernetes": framework.kubernetes_provider}
        if "helm_release" in doc.get("resource", {}):  # environments with Kueue queues
            expected["helm"] = framework.helm_provider
        assert pins == expected
