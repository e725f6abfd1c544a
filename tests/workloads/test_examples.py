"""The examples are what their command generates today, and each lints clean in its environment."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path
from types import ModuleType

import pytest

from gke_accel.model import load_environment
from gke_accel.workloads.lint import lint_texts

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
SCENARIOS = {
    "single-host-v5e-training.yaml",
    "multi-host-v5e-jobset.yaml",
    "two-gpu-training-job.yaml",
    "inference-deployment.yaml",
    "training-preempted-by-inference.yaml",
    "batch-sweep.yaml",
    "multislice-v5e-jobset.yaml",
    "two-node-h100-jobset.yaml",
}


def regenerate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regenerate", ROOT / "examples" / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_scenario_has_an_example() -> None:
    assert {p.name for p in EXAMPLES} == SCENARIOS


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_matches_its_command_and_lints_clean(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args, text = regenerate().generated(path)
    assert path.read_text(encoding="utf-8") == text, f"stale: run .venv/bin/python examples/regenerate.py ({path.name})"
    env = args[args.index("--env") + 1]
    report = lint_texts(load_environment(ROOT / "config" / f"{env}.yaml"), [(path.name, text)])
    assert report.ok and not [f for v in report.verdicts for f in v.findings], report.render()
    assert shlex.join(["gke-accel", "lint", "--env", env, f"examples/{path.name}"]) in text.splitlines()[1]


def test_preemption_pair_shares_a_pool_with_ordered_priorities() -> None:
    plan = load_environment(ROOT / "config" / "dev.yaml")
    texts = [
        (p.name, p.read_text())
        for p in EXAMPLES
        if p.name in ("inference-deployment.yaml", "training-preempted-by-inference.yaml")
    ]
    report = lint_texts(plan, texts)
    assert [v.pools for v in report.verdicts] == [("l4-dev",), ("l4-dev",)]
    pcs = plan.spec.platform.priority_classes
    assert "priorityClassName: inference" in texts[0][1] and "priorityClassName: training" in texts[1][1]
    assert pcs.inference.value > pcs.training.value


def test_checkov_finds_nothing_in_the_examples(tmp_path: Path) -> None:
    """Generated workloads are secure by default: 0 failed checkov checks, each accepted finding
    recorded on the object with its reason (``checkov.io/skipN`` annotations)."""
    import json
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "checkov.main", "-d", str(ROOT / "examples"), "--framework", "kubernetes",
         "--output", "json", "--quiet", "--skip-download"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    report = json.loads(result.stdout)
    summary = report["summary"]
    failed = [(c["check_id"], c["resource"]) for c in report["results"]["failed_checks"]]
    assert summary["failed"] == 0, failed
    assert summary["passed"] > 100 and summary["skipped"] > 0
