"""``review`` synthesizes an old base with that base's own code: the commit "refactor base (#27)"
(2026-12-02, before the team-unit refactor and this pipeline's) is checked out as a worktree and
synthesized in this process, as ``gke-accel review --base <ref>`` does.

Slow (a worktree and a synth of three environments): marker ``git``, run by ``make test`` and CI.
The regression net for HEAD is ``tests/golden``; this only proves that older bases stay reviewable.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gke_accel.review.git_base import synth_base, worktree
from require import require_or_skip

ROOT = Path(__file__).resolve().parents[2]
OLD_BASE = "refactor base (#27)"
ENVS = ("dev", "prod", "staging")

pytestmark = pytest.mark.git


def _commit(message: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--format=%H", f"--grep={message}", "--fixed-strings"],
        capture_output=True,
        text=True,
        check=False,
    )
    commits = proc.stdout.split()
    return commits[-1] if proc.returncode == 0 and commits else None


def test_review_synthesizes_an_old_base_in_process(tmp_path: Path) -> None:
    base = _commit(OLD_BASE)
    if base is None:  # a shallow clone: skip on a developer's machine, fail in CI (fetch-depth: 0)
        require_or_skip(f"no git history with the commit {OLD_BASE!r} (not a full clone)")
    assert base is not None
    with worktree(ROOT, base) as tree:
        side, notes = synth_base(tree, ROOT, tree / "config", tmp_path / "base", None)
    assert notes == [], notes  # in this process, with the base's own code
    assert side.method.startswith("in-process")
    assert side.errors == {}
    assert sorted(side.stacks) == list(ENVS)
    for env, stack in side.stacks.items():
        assert stack["//"]["metadata"]["stackName"] == env
        assert len(stack["resource"]["google_container_cluster"]) == 1
        assert stack["resource"]["google_container_node_pool"], f"{env}: no node pools"
    # with the base's own code, not HEAD's: the base predates the `default` LocalQueue (79b3ad2),
    # which HEAD's staging queues have
    [chart] = side.stacks_dir.glob("staging/assets/queues_*/*/templates/queues.yaml")
    head = (ROOT / "tests" / "golden" / "staging" / "manifests.yaml").read_text()
    assert "kind: LocalQueue\nmetadata:\n  name: team" in chart.read_text()
    assert "kind: LocalQueue\nmetadata:\n  name: default" not in chart.read_text()
    assert "kind: LocalQueue\nmetadata:\n  name: default" in head
