"""Shared fixtures. Provider bindings load once per session, and only for tests that need them."""

from __future__ import annotations

import os
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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "git: builds git worktrees of other revisions (review's old bases); slow, run by `make test`"
    )


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
    synth_environments(load_environments(CONFIG_DIR), str(out))
    return out / "stacks"


@pytest.fixture(scope="session")
def shipped(shipped_stacks: Path) -> dict[str, dict[str, Any]]:
    import json

    return {env: json.loads((shipped_stacks / env / "cdk.tf.json").read_text()) for env in ENVIRONMENTS}
