"""The team-unit refactor (#27) changed no behaviour: the commit before it and the end of it write
byte-identical deploy output for every shipped environment.

The base is the commit "refactor base (#27)" (main before the refactor); the end is the commit
"refactor end (#27)" once it exists, else this checkout's working tree. For dev, staging and prod it
compares every file synth writes (``cdk.tf.json`` and the Helm charts of the generated queue and
fence objects, copied into the stack's ``assets/`` folder) and the YAML ``gke-accel manifests``
prints. Each revision is checked out as a git worktree and synthesized in this process with its own
code (the plan review's mechanism, ``review/git_base.py``).
"""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path
from typing import Any

import yaml

from gke_accel.review.git_base import base_code, synth_in_process, worktree
from require import require_or_skip

ROOT = Path(__file__).resolve().parents[2]
BASE = "refactor base (#27)"
END = "refactor end (#27)"
ENVS = ("dev", "staging", "prod")


def _commit(message: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--format=%H", f"--grep={message}", "--fixed-strings"],
        capture_output=True,
        text=True,
        check=False,
    )
    commits = proc.stdout.split()
    return commits[-1] if proc.returncode == 0 and commits else None


def _written(out: Path) -> dict[str, bytes]:
    """Every file synth wrote, by its path inside the output folder (``manifest.json``,
    ``stacks/<env>/cdk.tf.json``, ``stacks/<env>/assets/<id>/<content hash>/...`` for the charts)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _manifests(root: Path) -> dict[str, bytes]:
    """What ``gke-accel manifests --env <env>`` prints, per environment, with ``root``'s code."""
    with base_code(root):
        view: Any = importlib.import_module("gke_accel.cli.manifests_view")
        load: Any = importlib.import_module("gke_accel.model.environment.config_files").load_environments
        plans = load(root / "config", list(ENVS))
        return {p.name: yaml.safe_dump_all(view.environment_manifests(p), sort_keys=False).encode() for p in plans}


def _side(root: Path, out: Path) -> dict[str, bytes]:
    side = synth_in_process(root, root / "config", out, list(ENVS))
    assert not side.errors, side.errors
    manifests = {f"(gke-accel manifests --env {env})": body for env, body in _manifests(root).items()}
    return {**_written(out), **manifests}


def test_refactor_keeps_synth_and_manifests_byte_identical(tmp_path: Path) -> None:
    base = _commit(BASE)
    if base is None:
        # a shallow clone: skip on a developer's machine, fail in CI (check out with fetch-depth: 0)
        require_or_skip(f"no git history with the commit {BASE!r} (not a full clone)")
    end = _commit(END)
    with worktree(ROOT, base) as tree:
        before = _side(tree, tmp_path / "before")
    if end is None:  # the refactor is in progress: this checkout is its end
        after = _side(ROOT, tmp_path / "after")
    else:
        with worktree(ROOT, end) as tree:
            after = _side(tree, tmp_path / "after")
    compared = set(before)
    for env in ENVS:  # what the comparison must cover, so that it cannot pass by comparing nothing
        assert f"stacks/{env}/cdk.tf.json" in compared
        assert f"(gke-accel manifests --env {env})" in compared
    assert any("/assets/" in name and name.endswith("templates/queues.yaml") for name in compared)
    assert any("/assets/" in name and name.endswith("templates/fences.yaml") for name in compared)
    assert sorted(before) == sorted(after), "synth wrote other files"
    changed = [name for name, body in before.items() if after[name] != body]
    assert not changed, f"changed across the refactor: {changed}"
