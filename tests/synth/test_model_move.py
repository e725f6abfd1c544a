"""The move of ``model/`` into capability subpackages changed no behaviour: the commit before the
move and the move itself synthesize byte-identical Terraform JSON for every shipped environment.

Both revisions are checked out as git worktrees and synthesized in this process with their own code
(the plan review's mechanism), so this also proves that a review whose base predates the move works.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from gke_accel.review.git_base import synth_in_process, worktree

ROOT = Path(__file__).resolve().parents[2]
MOVE = "model: subpackages by capability"


def _move_commit() -> str:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--format=%H", f"--grep={MOVE}", "--fixed-strings"],
        capture_output=True,
        text=True,
        check=False,
    )
    commits = proc.stdout.split()
    if proc.returncode != 0 or not commits:
        pytest.skip(f"no git history with the commit {MOVE!r} (not a full clone)")
    return commits[-1]


def test_model_move_synthesizes_byte_identical_stacks(tmp_path: Path) -> None:
    if importlib.util.find_spec("cdktf") is None:
        pytest.skip("both revisions import cdktf 0.21, which is not installed in this environment")
    commit = _move_commit()
    outputs: dict[str, dict[str, bytes]] = {}
    for label, rev in (("before", f"{commit}^"), ("after", commit)):
        with worktree(ROOT, rev) as tree:
            side = synth_in_process(tree, tree / "config", tmp_path / label, None)
            outputs[label] = {
                env: (side.stacks_dir / env / "cdk.tf.json").read_bytes() for env in ("dev", "staging", "prod")
            }
    assert outputs["before"].keys() == outputs["after"].keys()
    for env, before in outputs["before"].items():
        assert before == outputs["after"][env], f"{env}: synthesized JSON changed across the model move"
