"""Shared fixtures. Provider bindings load once per session, and only for tests that need them."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import to_yaml

os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "config"
ENVIRONMENTS = ("dev", "staging", "prod")


# Test tiers, named for what they run (docs/architecture.md "Test tiers"). `make test` runs every tier
# but e2e; `make test-model` the model tier alone (seconds, no jsii, no external tool). A test gets
# its tier here, from its fixtures and its file, so that a new test lands in a tier without a marker.
TIERS = {
    "model": "pure Python: the model, the CLI's text, the workload tools (no jsii, no external tool)",
    "synth": "loads the CDK framework and provider bindings (jsii) and synthesizes stacks",
    "helm": "renders the generated and pinned charts with the helm CLI (`helm template`)",
    "scan": "runs checkov (the policy scan) on stacks or manifests",
    "git": "builds git repositories or worktrees of other revisions (review's bases)",
}
SYNTH_FIXTURES = {"synth", "shipped_stacks", "shipped"}
SYNTH_FOLDERS = ("synth", "golden", "frameworks")
# a test file that imports the constructs or the stacks, or runs `gke-accel synth` or jsii in a child
SYNTH_SOURCE = re.compile(r"gke_accel\.(?:stacks|cdk)\b|\bjsii\b|\"synth\"")
TIER_TESTS = {  # tests/<path>[::<test>] -> tier, where fixtures and folders do not tell
    "queues/test_chart_values_rendered.py": "helm",
    "synth/test_policy_scan.py": "scan",
    "deploy/test_scan_output.py": "scan",
    "review/test_review_scans.py": "scan",
    "workloads/test_examples.py::test_checkov_finds_nothing_in_the_examples": "scan",
    "review/test_review_git.py": "git",
    "review/test_review_old_base.py": "git",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, what in TIERS.items():
        config.addinivalue_line("markers", f"{name}: test tier: {what}")


def tier_of(relative: str, name: str, fixtures: set[str]) -> str:
    """The tier of test ``name`` in ``tests/<relative>`` using ``fixtures``."""
    for key in (f"{relative}::{name.split('[')[0]}", relative):
        if key in TIER_TESTS:
            return TIER_TESTS[key]
    synth = fixtures & SYNTH_FIXTURES or relative.split("/")[0] in SYNTH_FOLDERS or relative.endswith("_json.py")
    return "synth" if synth or _loads_the_framework(relative) else "model"


@functools.cache
def _loads_the_framework(relative: str) -> bool:
    return bool(SYNTH_SOURCE.search((ROOT / "tests" / relative).read_text(encoding="utf-8")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("e2e") is not None or any(item.get_closest_marker(t) for t in TIERS):
            continue
        relative = item.path.relative_to(ROOT / "tests").as_posix()
        item.add_marker(getattr(pytest.mark, tier_of(relative, item.name, set(getattr(item, "fixturenames", ())))))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """End the run as soon as pytest has reported: once the provider bindings are loaded, interpreter
    teardown takes seconds. Set GKE_ACCEL_SLOW_EXIT=1 to keep the normal shutdown."""
    if "jsii" in sys.modules and not os.environ.get("GKE_ACCEL_SLOW_EXIT"):
        from gke_accel.cli.progress import exit_now

        exit_now(config.stash.get(_EXIT_STATUS, 0))


_EXIT_STATUS = pytest.StashKey[int]()


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Synthesize one environment config (a dict) into its Terraform JSON, as ``cdktf synth`` writes it."""
    import json

    from gke_accel.model import load_environment_text
    from gke_accel.stacks.app import synth_environments

    def run(data: dict[str, Any]) -> dict[str, Any]:
        plan = load_environment_text(to_yaml(data))
        out = synth_environments([plan], str(tmp_path_factory.mktemp("synth")))
        result: dict[str, Any] = json.loads((out / "stacks" / plan.name / "cdk.tf.json").read_text())
        return result

    return run


@pytest.fixture(scope="session")
def shipped_stacks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All shipped environments synthesized once, as ``cdktf synth`` would write them."""
    from gke_accel.model.environment.config_files import load_environments
    from gke_accel.stacks.app import synth_environments

    out = tmp_path_factory.mktemp("cdktf.out")
    # the shipped three by name: `gke-accel init qa` (the README's example) may have added config/qa.yaml
    synth_environments(load_environments(CONFIG_DIR, list(ENVIRONMENTS)), str(out))
    return out / "stacks"


@pytest.fixture(scope="session")
def shipped(shipped_stacks: Path) -> dict[str, dict[str, Any]]:
    import json

    return {env: json.loads((shipped_stacks / env / "cdk.tf.json").read_text()) for env in ENVIRONMENTS}
