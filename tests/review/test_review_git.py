"""``gke-accel review --base <ref>`` through git: a temporary repository holding a copy of this
project, the base from a worktree (in-process, and once through the subprocess fallback), and the
policy comparison with checkov."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.cli.main import main
from gke_accel.review.build import SideResult
from gke_accel.review.compare import add_policy, compare_sides, review_git

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".mypy_cache")


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This project's code and configs, committed once in a fresh repository."""
    path = tmp_path_factory.mktemp("repo")
    for name in ("constructs", "stacks"):
        shutil.copytree(ROOT / name, path / name, ignore=IGNORE)
    # the shipped three by name: `gke-accel init qa` (the README's example) may have added config/qa.yaml
    (path / "config").mkdir()
    for env in ("dev", "staging", "prod"):
        shutil.copy(ROOT / "config" / f"{env}.yaml", path / "config" / f"{env}.yaml")
    shutil.copy(ROOT / "pyproject.toml", path / "pyproject.toml")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "base")
    return path


def edit_config(repo: Path, env: str, change: Any) -> None:
    path = repo / "config" / f"{env}.yaml"
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def run_cli(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.chdir(repo)
    return main(["review", "--no-policy", "--replay", "never", "--outdir", str(repo / "cdktf.out"), *args])


def test_review_against_head_of_an_unchanged_tree_is_no_change(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    head_module = sys.modules["gke_accel"]
    assert run_cli(repo, monkeypatch, "--base", "HEAD", "--json", str(repo / "review.json")) == 0
    out = capsys.readouterr().out
    assert "**No changes.**" in out and "dev: no changes" in out
    data = json.loads((repo / "review.json").read_text())
    assert data["summary"] == ["dev: no changes", "prod: no changes", "staging: no changes"]
    assert data["exit_code"] == 0 and "base synthesized in-process" in data["notes"][0]
    assert sys.modules["gke_accel"] is head_module  # the head's modules are back after the base synth
    assert git(repo, "worktree", "list").count("\n") == 1  # the base worktree is gone


def test_destructive_change_gates_with_fail_on_destroy(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    original = (repo / "config" / "dev.yaml").read_text()
    try:
        edit_config(repo, "dev", lambda d: d["gpu_pools"][0].update(gpus_per_node=2))
        assert run_cli(repo, monkeypatch, "--base", "HEAD") == 2
        capsys.readouterr()
        assert run_cli(repo, monkeypatch, "--base", "HEAD", "--fail-on-destroy", "--markdown", "r.md") == 3
        markdown = (repo / "r.md").read_text()
        dev_line = next(line for line in markdown.splitlines() if line.startswith("dev: "))
        assert dev_line.startswith("dev: 1 to replace, 0 to destroy, 0 to add, ")  # + alert runbooks in place
        assert dev_line.endswith("(1 destructive)")
        assert "jobs on it lose their nodes" in markdown
    finally:
        (repo / "config" / "dev.yaml").write_text(original)


def test_unknown_base_ref_is_an_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old_comment = repo / "stale.md"
    old_comment.write_text("<!-- gke-accel-review -->\nan older review\n")
    assert run_cli(repo, monkeypatch, "--base", "origin/no-such-branch", "--markdown", str(old_comment)) == 1
    err = capsys.readouterr().err
    assert (
        "base ref 'origin/no-such-branch' is not a commit in this clone. Fetch it first "
        "(git fetch origin no-such-branch)" in err
    )
    failure = old_comment.read_text()  # the failure replaces the comment, no stale review stays up
    assert failure.startswith("<!-- gke-accel-review -->") and "an older review" not in failure
    assert "the review failed" in failure and "git fetch origin no-such-branch" in failure


def test_broken_base_is_reported_not_fatal(repo: Path, tmp_path: Path) -> None:
    """A base whose config does not validate: the review says so and still shows the head."""
    git(repo, "checkout", "-q", "-b", "broken")
    try:
        edit_config(repo, "staging", lambda d: d["gpu_pools"][0].update(gpus_per_node=3))
        git(repo, "commit", "-q", "-am", "broken staging")
        git(repo, "checkout", "-q", "main")
        review = review_git("broken", config_dir=repo / "config", outdir=tmp_path / "out", policy=False, repo=repo)
        staging = next(s for s in review.stacks if s.name == "staging")
        assert staging.status == "error" and "base config does not load" in staging.error
        assert not review.errors and review.exit_code() == 2
        assert [s.status for s in review.stacks if s.name != "staging"] == ["unchanged", "unchanged"]
    finally:
        git(repo, "checkout", "-q", "main")


def test_subprocess_fallback_gives_the_same_review(repo: Path, tmp_path: Path) -> None:
    review = review_git(
        "HEAD", config_dir=repo / "config", outdir=tmp_path / "out", policy=False, force_subprocess=True, repo=repo
    )
    assert "separate process" in review.notes[0]
    assert [s.status for s in review.stacks] == ["unchanged", "unchanged", "unchanged"]
    assert review.stacks[0].before == review.stacks[0].after  # facts computed by the base's own code


def write_side(label: str, root: Path, stacks: dict[str, dict[str, Any]]) -> SideResult:
    for env, doc in stacks.items():
        (root / "stacks" / env).mkdir(parents=True)
        (root / "stacks" / env / "cdk.tf.json").write_text(json.dumps(doc))
    return SideResult(label, root / "stacks", stacks=stacks)


def test_policy_findings_new_in_the_head_and_resolved(shipped: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    base_doc = shipped["dev"]
    head_doc = copy.deepcopy(base_doc)
    cluster = next(iter(head_doc["resource"]["google_container_cluster"].values()))
    del cluster["//"]["checkov_skip"]["CKV_GCP_12"]  # the accepted NetworkPolicy finding comes back
    base = write_side("base", tmp_path / "base", {"dev": base_doc})
    head = write_side("head", tmp_path / "head", {"dev": head_doc})
    review = compare_sides(base, head, base_ref="b", head_ref="h")
    add_policy(review, base, head)
    assert review.policy_checked
    (dev,) = review.stacks
    assert [f.check_id for f in dev.new_findings] == ["CKV_GCP_12"]
    assert dev.resolved_findings == []
    assert dev.changes[0].skips_removed == ("CKV_GCP_12",)
    reverse = compare_sides(head, base, base_ref="h", head_ref="b")
    add_policy(reverse, head, base)
    assert [f.check_id for f in reverse.stacks[0].resolved_findings] == ["CKV_GCP_12"]


def test_a_base_pinning_only_the_other_framework_uses_its_environment(tmp_path: Path) -> None:
    from gke_accel.frameworks import FRAMEWORKS, choose
    from gke_accel.review.git_base import base_python

    running = choose()
    other = next(f for f in FRAMEWORKS.values() if f is not running)
    other_pins = {d: "1.0" for d in other.distributions}
    assert base_python(other_pins, tmp_path) == sys.executable  # no environment for it: this one
    python = tmp_path / f".venv-{other.name}" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    assert base_python(other_pins, tmp_path) == str(python)
    both = {**other_pins, **{d: "1.0" for d in running.distributions}}
    assert base_python(both, tmp_path) == sys.executable  # the base can run here
