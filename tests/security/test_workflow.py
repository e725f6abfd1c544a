"""The plan-review workflow: pinned actions, least privilege per job, no credentials for forks,
a review for fork pull requests too, and a value for every Terraform variable of the plan."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "plan-review.yml"
sys.path.insert(0, str(ROOT / "tools" / "ci"))
from plan_variables import missing_variables  # noqa: E402


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text())
    return data


def _steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in workflow["jobs"].items() for step in job["steps"]]


def test_every_action_is_pinned_to_a_commit_sha(workflow: dict[str, Any]) -> None:
    uses = [step["uses"] for _, step in _steps(workflow) if "uses" in step]
    assert uses
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref


def test_permissions_are_minimal_per_job(workflow: dict[str, Any]) -> None:
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    assert jobs["plan"]["permissions"] == {"contents": "read", "id-token": "write"}
    assert jobs["review"]["permissions"] == {"contents": "read", "pull-requests": "write"}


def test_cloud_credentials_never_reach_fork_code(workflow: dict[str, Any]) -> None:
    assert set(workflow[True]) == {"pull_request"}  # YAML reads the key `on` as True
    plan = workflow["jobs"]["plan"]
    assert plan["if"] == "github.event.pull_request.head.repo.full_name == github.repository"
    names = [s.get("name", s.get("uses", "")) for s in plan["steps"]]
    auth = next(i for i, n in enumerate(names) if "auth@" in str(plan["steps"][i].get("uses", "")))
    synth = next(i for i, n in enumerate(names) if str(n).startswith("Synthesize"))
    assert synth < auth, "the pull request's code runs before any credential exists"
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "actions/checkout@" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False
    review_text = json.dumps(workflow["jobs"]["review"])
    assert "secrets." not in review_text


def test_fork_pull_requests_get_the_review_as_job_summary_and_artifact(workflow: dict[str, Any]) -> None:
    review = workflow["jobs"]["review"]
    assert review["if"] == "always()"
    runs = "\n".join(s.get("run", "") for s in review["steps"])
    assert 'cat review.md >> "$GITHUB_STEP_SUMMARY"' in runs
    uploads = [s for s in review["steps"] if "upload-artifact@" in s.get("uses", "")]
    assert uploads and uploads[0]["if"] == "always()"


def test_every_terraform_variable_of_the_stacks_gets_a_value_in_the_plan(
    workflow: dict[str, Any], shipped_stacks: Path
) -> None:
    (plan_step,) = [s for s in workflow["jobs"]["plan"]["steps"] if s.get("name") == "terraform plan per stack"]
    environ = {k: "set" for k in plan_step.get("env", {})}
    assert missing_variables(shipped_stacks, environ) == {}
    assert missing_variables(shipped_stacks, {}) != {}, "the shipped prod stack declares a PagerDuty variable"


def test_plan_variables_names_a_missing_variable(tmp_path: Path) -> None:
    (tmp_path / "prod").mkdir()
    doc = {"variable": {"key": {"type": "string", "sensitive": True}, "opt": {"type": "string", "default": "x"}}}
    (tmp_path / "prod" / "cdk.tf.json").write_text(json.dumps(doc))
    assert missing_variables(tmp_path, {}) == {"key": ["prod"]}
    assert missing_variables(tmp_path, {"TF_VAR_key": "v"}) == {}
