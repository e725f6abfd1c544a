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
# staging's L4s are behind its capacity ladder (config/staging.yaml capacity.l4): what `workload new` writes
# for an L4 selects the ComputeClass l4, whose label only the ladder's pools carry (docs/capacity.md).
# lint's reason on a head without the ladder: no pool has that label any more.
NO_CLASS_REASON = "'l4' matches no pool; no pool has label cloud.google.com/compute-class"
SERVING_DEPLOYMENT = "workload new --team serving --accelerator l4 --kind deployment"
# the ladder's pools and how each gets its VMs (config/staging.yaml gpu_pools)
L4_POOLS = "l4-reserved (reservation), l4-serve (on-demand), l4-spot (Spot)"


def plan(data: dict[str, Any]) -> EnvironmentPlan:
    return load_environment_text(yaml.safe_dump(data), expected_name="staging")


def without_ladder() -> dict[str, Any]:
    data = copy.deepcopy(STAGING)
    del data["capacity"]  # the pools stay; nothing labels them for the class any more
    return data


def test_dropping_the_l4_ladder_lists_the_serving_deployment_that_stops_scheduling() -> None:
    changes = workload_changes(plan(STAGING), plan(without_ladder()), ROOT / "examples")
    serving = next(c for c in changes if c.workload == SERVING_DEPLOYMENT)
    assert (serving.team, serving.before, serving.after) == ("serving", L4_POOLS, "does not schedule")
    assert NO_CLASS_REASON in serving.reason and "\n" not in serving.reason
    assert serving.untouched  # the change is to the capacity section: no team's own config moved
    # every L4 workload of both teams with an L4 share, none of the TPU ones
    assert {(c.team, c.workload.removeprefix("workload new --team ")) for c in changes} == {
        ("nlp", "nlp --accelerator l4"), ("nlp", "nlp --accelerator l4 --kind deployment"),
        ("serving", "serving --accelerator l4"), ("serving", "serving --accelerator l4 --kind deployment"),
    }  # fmt: skip


def test_a_change_that_keeps_every_workload_schedulable_lists_none() -> None:
    bigger = copy.deepcopy(STAGING)
    # the Spot rung grows by one VM: the teams' shares still fill reservation 2, on-demand 1, Spot 2
    # (config/staging.yaml), so every L4 workload keeps its pools. (Growing the on-demand rung instead
    # moves serving's Spot share onto it: the Spot rung then has no quota and is a change the review lists.)
    next(p for p in bigger["gpu_pools"] if p["name"] == "l4-spot")["max_nodes"] = 3
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
    l4 = "l4-reservation-r-l4-serve 1, l4-on-demand 1, l4-spot 2"  # serving's 4 L4s over the ladder's rungs
    assert f"nominal `{l4}, v5e-2x4 8` → `{l4}, v5e-2x2-spot 8`" in serving


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def test_review_of_a_branch_dropping_the_l4_ladder_names_the_serving_deployment(
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
    git(repo, "checkout", "-q", "-b", "pr/staging-no-ladder")
    (repo / "config" / "staging.yaml").write_text(yaml.safe_dump(without_ladder(), sort_keys=False))
    git(repo, "commit", "-q", "-am", "staging: no L4 ladder")
    monkeypatch.chdir(repo)
    out = str(repo / "cdktf.out")  # no queue replay here: tests/review/test_review_replay.py
    args = ["review", "--no-policy", "--replay", "never", "--env", "staging", "--outdir", out, "--base", "main"]
    assert main([*args, "--json", str(tmp_path / "review.json")]) == 2
    markdown = capsys.readouterr().out
    assert "will not after this change" in markdown  # the warning box at the top
    line = next(x for x in markdown.splitlines() if x.startswith("- ✖ serving: `" + SERVING_DEPLOYMENT))
    assert NO_CLASS_REASON in line and L4_POOLS in line
    data = json.loads((tmp_path / "review.json").read_text())
    (stack,) = data["stacks"]
    assert SERVING_DEPLOYMENT in [w["workload"] for w in stack["workloads"] if w["after"] == "does not schedule"]
    assert data["workloads_broken"] >= 1 and "stop scheduling" in stack["summary"]
