"""The review names the workloads a change breaks (review/workloads.py): what ``workload new`` writes
for each team and accelerator, and examples/, linted against base and head; teams the change did not
touch are marked (their Kueue share can move when another team's quota or a new pool changes)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.cli.main import main
from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.review.facts import environment_facts
from gke_accel.review.tables import queue_changes
from gke_accel.review.workloads import touched_teams, workload_changes

ROOT = Path(__file__).resolve().parents[2]
STAGING = yaml.safe_load((ROOT / "config" / "staging.yaml").read_text())
# GKE puts this taint on every Spot node (cloud.google.com/kubernetes-engine/docs/concepts/spot-vms,
# tests/fixtures/gke-nodes): a pod without the toleration never lands there.
# lint's reason on head: the Deployment asks for on-demand capacity (gke-accel/capacity, the label every
# pool carries) and the only L4 pool is Spot now, so Kueue (staging uses it) has no flavor to admit it on
SPOT_REASON = (
    "no flavor of team serving's ClusterQueue (l4-spot: nodeSelector gke-accel/capacity=on-demand (nodes have spot))"
)
SERVING_DEPLOYMENT = "workload new --team serving --accelerator l4 --kind deployment"


def plan(data: dict[str, Any]) -> EnvironmentPlan:
    return load_environment_text(yaml.safe_dump(data), expected_name="staging")


def l4_spot() -> dict[str, Any]:
    data = copy.deepcopy(STAGING)
    data["gpu_pools"][0]["consumption"] = "spot"  # l4-serve, the pool serving's inference runs on
    return data


def test_a_serving_pool_turned_spot_lists_the_serving_deployment_that_stops_scheduling() -> None:
    changes = workload_changes(plan(STAGING), plan(l4_spot()), ROOT / "examples")
    serving = next(c for c in changes if c.workload == SERVING_DEPLOYMENT)
    assert (serving.team, serving.before, serving.after) == ("serving", "l4-serve (on-demand)", "does not schedule")
    assert SPOT_REASON in serving.reason and "\n" not in serving.reason
    assert serving.untouched  # the change is to a pool: no team's own config moved


def test_a_change_that_keeps_every_workload_schedulable_lists_none() -> None:
    bigger = copy.deepcopy(STAGING)
    bigger["gpu_pools"][0]["max_nodes"] = 6
    assert workload_changes(plan(STAGING), plan(bigger), ROOT / "examples") == []
    assert workload_changes(plan(STAGING), plan(STAGING), ROOT / "examples") == []


def test_a_team_the_change_did_not_touch_is_marked_when_its_share_moves_to_spot() -> None:
    """N4: a Spot pool added and research's v5e raised; serving's nominal TPU share moves to Spot."""
    head = copy.deepcopy(STAGING)
    small = {"name": "v5e-small", "generation": "v5e", "topology": "2x2", "zone": "us-central1-a"}
    head["tpu_pools"].append({**small, "max_slices": 4, "consumption": "spot"})
    next(t for t in head["teams"] if t["name"] == "research")["accelerators"]["v5e"] = 24
    base_plan, head_plan = plan(STAGING), plan(head)
    touched = touched_teams(base_plan, head_plan)
    assert touched == {"research"}
    lines = queue_changes(environment_facts(base_plan), environment_facts(head_plan), tuple(sorted(touched)))
    serving = next(line for line in lines if line.startswith("- **serving**"))
    research = next(line for line in lines if line.startswith("- **research**"))
    assert "not in this diff's teams" in serving and "not in this diff's teams" not in research
    assert "nominal `l4 3, v5e-2x4 8` → `l4 3, v5e-2x2-spot 8`" in serving


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def test_review_of_a_branch_turning_the_serving_pool_to_spot_names_the_serving_deployment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".mypy_cache")
    for name in ("constructs", "stacks", "examples"):
        shutil.copytree(ROOT / name, repo / name, ignore=ignore)
    (repo / "config").mkdir()
    for env in ("dev", "staging", "prod"):  # the shipped three: config/ may hold a user's qa.yaml
        shutil.copy(ROOT / "config" / f"{env}.yaml", repo / "config" / f"{env}.yaml")
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr/staging-l4-spot")
    (repo / "config" / "staging.yaml").write_text(yaml.safe_dump(l4_spot(), sort_keys=False))
    git(repo, "commit", "-q", "-am", "staging: l4-serve on Spot")
    monkeypatch.chdir(repo)
    args = ["review", "--no-policy", "--env", "staging", "--outdir", str(repo / "cdktf.out"), "--base", "main"]
    assert main([*args, "--json", str(tmp_path / "review.json")]) == 2
    markdown = capsys.readouterr().out
    assert "will not after this change" in markdown  # the warning box at the top
    line = next(x for x in markdown.splitlines() if x.startswith("- ✖ serving: `" + SERVING_DEPLOYMENT))
    assert SPOT_REASON in line and "l4-serve (on-demand)" in line
    data = json.loads((tmp_path / "review.json").read_text())
    (stack,) = data["stacks"]
    assert SERVING_DEPLOYMENT in [w["workload"] for w in stack["workloads"] if w["after"] == "does not schedule"]
    assert data["workloads_broken"] >= 1 and "stop scheduling" in stack["summary"]
