"""The base revision: a detached git worktree, synthesized with the BASE's own code.

In-process (the default): the jsii runtime and the provider bindings stay loaded; only the
``gke_accel`` modules are swapped for the worktree's (its ``constructs/``), then restored. That costs a
fraction of a second instead of a second ~10 s / ~1 GB load. Fallback: a separate Python process
(``_worker.py``) when the base pins other cdktf/provider versions or its code does not import this
way; the review says which path was taken.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gke_accel.frameworks import FRAMEWORKS, choose

from .build import SideResult, side_result, synth_side

# Every framework's pinned distributions (cdktn by default, cdktf as an extra): gke_accel/frameworks.py.
PINNED = tuple(d for f in FRAMEWORKS.values() for d in f.distributions)
_OWN_MODULES = ("gke_accel",)


class BaseError(RuntimeError):
    """The base revision cannot be checked out or synthesized at all."""


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BaseError(f"git {' '.join(args)}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout.strip()


def resolve(repo: Path, ref: str) -> str:
    """The commit a ref names, or BaseError (e.g. origin/main in a clone that only fetched the PR)."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        remotes = subprocess.run(["git", "-C", str(repo), "remote"], capture_output=True, text=True, check=False)
        remote, _, branch = ref.partition("/")
        if branch and remote in {"origin", *remotes.stdout.split()}:  # origin/main: fetch main from origin
            fetch = shlex.join(["git", "fetch", remote, branch])
        else:  # quoted: a ref is data, whatever it holds (`;`, spaces, `$(...)`)
            fetch = shlex.join(["git", "fetch", "origin", ref])
        raise BaseError(
            f"base ref '{ref}' is not a commit in this clone. Fetch it first ({fetch}); in GitHub Actions, "
            "check out with `fetch-depth: 0`."
        )
    return proc.stdout.strip()


@contextmanager
def worktree(repo: Path, commit: str) -> Iterator[Path]:
    """A detached worktree of ``commit`` in a temporary folder, removed afterwards (also on error)."""
    tmp = Path(tempfile.mkdtemp(prefix="gke-accel-review-"))
    path = tmp / "base"
    git(repo, "worktree", "add", "--detach", "--quiet", str(path), commit)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(path)], capture_output=True)
        subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def pins(pyproject: Path) -> dict[str, str]:
    """``name==version`` pins of the framework packages in a pyproject.toml (empty when unreadable)."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return {}
    found = re.findall(r'"([A-Za-z0-9_.-]+)\s*==\s*([^"\s]+)"', text)
    return {name.lower(): version for name, version in found if name.lower() in PINNED}


def _own(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in _OWN_MODULES)


@contextmanager
def base_code(root: Path) -> Iterator[None]:
    """Make ``import gke_accel`` load the worktree's code; restore the head's after."""
    importlib.import_module("gke_accel.scratch")  # the head's, so the base's scratch folder can be handed to it
    saved_path = list(sys.path)
    saved = {k: v for k, v in sys.modules.items() if _own(k)}
    for key in saved:
        del sys.modules[key]
    sys.path[:0] = [str(root / "constructs")]
    importlib.invalidate_caches()
    try:
        yield
    finally:
        _adopt_base_scratch(saved.get("gke_accel.scratch"))
        for key in [k for k in sys.modules if _own(k)]:
            del sys.modules[key]
        sys.modules.update(saved)
        sys.path[:] = saved_path
        importlib.invalidate_caches()


def _adopt_base_scratch(head: Any) -> None:
    """The base code's scratch folder (its own ``gke_accel.scratch`` module made it) is removed with the
    head's, on every exit path (``exit_now`` calls the head's ``remove`` only)."""
    base = sys.modules.get("gke_accel.scratch")
    if base is None or base is head:
        return
    for folder in [Path(p) for p in getattr(base, "_DIR", [])]:
        if hasattr(head, "adopt"):
            head.adopt(folder)


def synth_in_process(root: Path, config_dir: Path, outdir: Path, names: list[str] | None) -> SideResult:
    with base_code(root):
        data = synth_side(config_dir, outdir, names)
    return side_result("base", outdir, data, "in-process (provider bindings shared with the head)")


def base_python(base_pins: dict[str, str], head_root: Path) -> str:
    """The interpreter for the base: this one, unless the base pins only another framework whose
    environment (``.venv-<framework>``, e.g. from ``make setup-other-framework``) exists next to the head."""
    running = choose()
    if any(d in base_pins for d in running.distributions):
        return sys.executable
    for framework in FRAMEWORKS.values():
        candidate = head_root / f".venv-{framework.name}" / "bin" / "python"
        pins_it = framework.distributions[0] in base_pins  # its core package (cdktf / cdktn)
        if framework is not running and pins_it and candidate.exists():
            return str(candidate)
    return sys.executable


def synth_subprocess(
    root: Path, config_dir: Path, outdir: Path, names: list[str] | None, python: str = sys.executable
) -> SideResult:
    result_file = outdir.parent / f"{outdir.name}-result.json"
    cmd = [
        python,
        str(Path(__file__).with_name("_worker.py")),
        str(root),
        str(config_dir),
        str(outdir),
        str(result_file),
        *(names or []),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, check=False)
    if proc.returncode != 0 or not result_file.exists():
        raise BaseError(f"the base revision could not be synthesized: {proc.stderr.strip()[-3000:]}")
    data = json.loads(result_file.read_text())
    return side_result("base", outdir, data, "separate process")


def synth_base(
    root: Path,
    head_root: Path,
    config_dir: Path,
    outdir: Path,
    names: list[str] | None,
    *,
    force_subprocess: bool = False,
) -> tuple[SideResult, list[str]]:
    """Synthesize the base worktree at ``root``; returns the result and notes for the reader."""
    notes: list[str] = []
    base_pins, head_pins = pins(root / "pyproject.toml"), pins(head_root / "pyproject.toml")
    reason = ""
    if force_subprocess:
        reason = "requested"
    elif base_pins and head_pins and base_pins != head_pins:
        changed = ", ".join(
            f"{n} {base_pins.get(n, '-')} -> {head_pins.get(n, '-')}"
            for n in PINNED
            if base_pins.get(n) != head_pins.get(n)
        )
        reason = (
            f"the pull request changes pinned versions ({changed}); the base is synthesized with the installed ones"
        )
    if not reason:
        try:
            return synth_in_process(root, config_dir, outdir, names), notes
        except Exception as exc:  # base code shaped differently, or failing in this process
            reason = f"it failed in-process ({type(exc).__name__}: {str(exc)[:300]})"
            shutil.rmtree(outdir, ignore_errors=True)
    notes.append(f"base synthesized in a separate process: {reason}")
    python = base_python(base_pins, head_root)
    if python != sys.executable:
        notes.append(f"the base pins another framework: synthesized with {python}")
    return synth_subprocess(root, config_dir, outdir, names, python), notes
