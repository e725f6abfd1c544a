"""Output folders that commands may replace, and only those.

A command writes into a folder that is new, empty, or marked by an earlier gke-accel run (the
``.gke-accel-output`` marker file). It refuses the repository itself, any parent of it, the home
folder, anything inside a ``.git`` folder, and any folder holding files gke-accel did not write.
One run at a time writes a folder (a ``flock`` on the marker). Output is built in a staging folder
inside the output folder and swapped in whole when complete, so the folder shows exactly the
current config (no stale stacks or manifests) and an interrupted run leaves the previous output.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

MARKER = ".gke-accel-output"
MARKER_TEXT = "Written by gke-accel. Everything in this folder is replaced by the next run.\n"
STAGING_PREFIX = ".staging-"
# Terraform's own files in a stack folder (local state, provider cache, lock file): never ours to delete.
TERRAFORM_FILES = (".terraform", ".terraform.lock.hcl", "*.tfstate", "*.tfstate.backup", "terraform.tfstate.d")


class OutputDirError(Exception):
    """The output folder may not be written; the message names it and says what is allowed."""


def _protected_roots() -> list[Path]:
    """The repository (source checkout) and the working tree around the current folder."""
    roots = [Path(__file__).resolve().parents[2]]  # constructs/gke_accel/output_dir.py -> checkout
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists() or (folder / "pyproject.toml").exists():
            roots.append(folder)
            break
    return [r for r in roots if (r / "pyproject.toml").exists() or (r / ".git").exists()]


def _stack_is_ours(stack: Path) -> bool:
    """A stack folder holding only a cdk.tf.json that gke-accel synthesized (every resource it labels
    carries ``managed-by: gke-accel``) and Terraform's own files."""
    allowed = ("cdk.tf.json", *TERRAFORM_FILES)
    if not stack.is_dir() or not all(any(p.match(a) for a in allowed) for p in stack.iterdir()):
        return False
    try:
        with open(stack / "cdk.tf.json", "rb") as f:
            head = f.read(4 * 1024 * 1024)
    except OSError:
        return False
    return b'"managed-by": "gke-accel"' in head


def _looks_like_cdktf_output(folder: Path) -> bool:
    """A folder the cdktf CLI synthesized our app into: ``manifest.json`` + ``stacks/`` only, where the
    manifest lists exactly the stack folders and each is one of ours (another project's cdktf.out, or
    a stack folder holding someone's files, is not ours to delete)."""
    names = {p.name for p in folder.iterdir()}
    if not names or not names <= {"manifest.json", "stacks", MARKER}:
        return False
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(manifest, dict) or not isinstance(manifest.get("stacks"), dict):
        return False
    listed = set(manifest["stacks"])
    present = {p.name for p in (folder / "stacks").iterdir()} if (folder / "stacks").is_dir() else set()
    return listed == present and all(_stack_is_ours(folder / "stacks" / name) for name in present)


def check_output_dir(path: str | Path, *, option: str = "--outdir") -> Path:
    """The resolved folder, or OutputDirError when a command must not write there."""
    folder = Path(path).expanduser().resolve()
    if ".git" in folder.parts:
        raise OutputDirError(
            f"{option} {path}: is inside a .git folder ({folder}); git's own files would be replaced. "
            "Choose a folder of its own (e.g. cdktf.out)"
        )
    home = Path.home().resolve()
    for root in [*_protected_roots(), home]:
        if folder == root or folder in root.parents:
            what = "the home folder" if root == home else f"the repository {root}"
            relation = "is" if folder == root else "is a parent of"
            raise OutputDirError(
                f"{option} {path}: {relation} {what}; gke-accel replaces its output folder, so it must be a "
                "folder of its own (e.g. cdktf.out)"
            )
    if folder.exists():
        if not folder.is_dir():
            raise OutputDirError(f"{option} {path}: is a file, not a folder")
        if not (folder / MARKER).exists() and any(folder.iterdir()) and not _looks_like_cdktf_output(folder):
            raise OutputDirError(
                f"{option} {path}: holds files gke-accel did not write (no {MARKER} marker); "
                "choose a new or empty folder"
            )
    return folder


def claim_output_dir(path: str | Path, *, option: str = "--outdir") -> Path:
    """Check ``path``, create it if needed and mark it as gke-accel's output folder (no lock: see
    ``claimed_output_dir``, which every writer uses)."""
    folder = check_output_dir(path, option=option)
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / MARKER
    if not marker.exists():
        marker.write_text(MARKER_TEXT, encoding="utf-8")
    return folder


def _busy(option: str, path: str | Path) -> OutputDirError:
    return OutputDirError(
        f"{option} {path}: another gke-accel run is writing this folder right now; wait for it to "
        "finish, or choose another folder"
    )


_HELD: dict[Path, int] = {}  # folders this process holds the lock of -> nesting depth


@contextmanager
def claimed_output_dir(path: str | Path, *, option: str = "--outdir") -> Iterator[Path]:
    """``claim_output_dir`` holding an exclusive ``flock`` on the marker for the block: a second run
    into the same folder (another synth, a review writing the head) stops with one line instead of
    deleting the first run's staging folder. With the lock held, every ``.staging-*`` folder is left
    by a run that was killed, and is removed. Re-entrant within a process (a command may take the
    lock early, before loading the provider bindings, and the synth inside takes it again)."""
    folder = claim_output_dir(path, option=option)
    if folder in _HELD:
        _HELD[folder] += 1
        try:
            yield folder
        finally:
            _HELD[folder] -= 1
        return
    fd = os.open(folder / MARKER, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(option, path) from None
        for stale in folder.glob(f"{STAGING_PREFIX}*"):  # left by a run that was killed
            shutil.rmtree(stale, ignore_errors=True)
        _HELD[folder] = 1
        yield folder
    finally:
        _HELD.pop(folder, None)
        os.close(fd)  # releases the lock


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT/SIGTERM) until the block is done, so a swap is never half made."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocked = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _swap(new: Path, target: Path) -> None:
    old = target.with_name(f"{STAGING_PREFIX}old-{target.name}-{os.getpid()}")
    if target.exists() or target.is_symlink():
        target.rename(old)
    new.rename(target)
    if old.is_dir() and not old.is_symlink():
        shutil.rmtree(old, ignore_errors=True)
    elif old.exists() or old.is_symlink():
        old.unlink()


def keep_terraform_files(folder: Path, staging: Path) -> None:
    """Move Terraform's files from ``folder/stacks/<env>`` into the staged stacks, so a new synth keeps
    local state and ``terraform init`` results (also of an environment this run did not synthesize,
    whose folder then holds only those files and no stack)."""
    for stack in sorted((folder / "stacks").glob("*/")):
        for pattern in TERRAFORM_FILES:
            for item in stack.glob(pattern):
                destination = staging / "stacks" / stack.name / item.name
                destination.parent.mkdir(parents=True, exist_ok=True)
                if not destination.exists():
                    item.rename(destination)


@contextmanager
def staged_output(
    folder: Path, entries: Sequence[str], *, carry: Callable[[Path, Path], None] | None = None
) -> Iterator[Path]:
    """Yield an empty staging folder inside ``folder``; when the block succeeds, each of ``entries``
    (names of files or folders) in ``folder`` is replaced by the staged one, or removed when the run
    did not produce it. ``carry(folder, staging)`` may move files worth keeping into the staging
    folder first. On error or Ctrl-C the staging folder is removed and ``folder`` is unchanged."""
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=folder))
    try:
        yield staging
        with _signals_deferred():
            if carry is not None:
                carry(folder, staging)
            for name in entries:
                produced, target = staging / name, folder / name
                if produced.exists():
                    _swap(produced, target)
                elif target.is_dir():
                    shutil.rmtree(target)
                elif target.exists():
                    target.unlink()
    finally:
        shutil.rmtree(staging, ignore_errors=True)
