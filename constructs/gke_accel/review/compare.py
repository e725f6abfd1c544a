"""Put a review together: synthesize both sides, diff each stack, compare facts and policy findings."""

from __future__ import annotations

import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gke_accel.output_dir import check_output_dir

from .blocks import diff_blocks
from .build import SideResult, synth_current
from .diff import diff_stack
from .git_base import BaseError, git, resolve, synth_base, worktree
from .model import Review, StackReview
from .replay import ReplaySettings, add_replay
from .safety import safety_items
from .scans import CheckovZygote, add_policy, start_scan
from .workloads import add_workloads

__all__ = ["add_policy", "compare_sides", "review_config_dirs", "review_git"]


def compare_sides(base: SideResult, head: SideResult, *, base_ref: str, head_ref: str) -> Review:
    """The review of two synthesized sides (no policy scan; see ``add_policy``)."""
    review = Review(base_ref=base_ref, head_ref=head_ref)
    tpu = set(base.tpu_machine_types) | set(head.tpu_machine_types)
    envs = sorted(set(base.stacks) | set(head.stacks) | set(base.errors) | set(head.errors))
    for env in envs:
        if env in head.errors:
            review.errors.append(f"head: {head.errors[env]}")
            review.stacks.append(StackReview(env, "error", error=f"the head config does not load:\n{head.errors[env]}"))
            continue
        if env in base.errors:
            review.notes.append(f"base environment {env} does not load (the base is broken); shown as the head only")
            review.stacks.append(
                StackReview(
                    env,
                    "error",
                    changes=diff_stack(None, head.stacks.get(env), tpu_machine_types=tpu),
                    after=head.facts.get(env),
                    error=f"the base config does not load, so nothing can be compared:\n{base.errors[env]}",
                )
            )
            continue
        before, after = base.stacks.get(env), head.stacks.get(env)
        changes = diff_stack(before, after, tpu_machine_types=tpu)
        stack = StackReview(env, "unchanged", changes, base.facts.get(env), head.facts.get(env))
        stack.blocks = diff_blocks(before, after)
        facts = (base.facts.get(env), head.facts.get(env))
        production = (facts[0].production if facts[0] else None, facts[1].production if facts[1] else None)
        stack.safety = safety_items(changes, stack.blocks, before, after, production=production)
        if before is None:
            stack.status = "added"
        elif after is None:
            stack.status = "removed"
        elif stack.has_changes:
            stack.status = "changed"
        review.stacks.append(stack)
    return review


def _examples(config_dir: Path) -> Path | None:
    """The repository's examples/ beside its config folder (what the docs tell teams to start from)."""
    examples = config_dir.resolve().parent / "examples"
    return examples if examples.is_dir() else None


def review_config_dirs(
    base_config: Path,
    head_config: Path,
    workdir: Path,
    *,
    policy: bool = False,
    names: list[str] | None = None,
    replay: ReplaySettings | None = None,
) -> Review:
    """Two config folders synthesized with the code loaded now: the review without git (no queue
    replay unless ``replay`` says how)."""
    base = synth_current("base", base_config, workdir / "base", names)
    head = synth_current("head", head_config, workdir / "head", names)
    review = compare_sides(base, head, base_ref=str(base_config), head_ref=str(head_config))
    add_workloads(review, base_config, head_config, names, _examples(head_config))
    if replay is not None:
        add_replay(review, base_config, head_config, (base.stacks, head.stacks), replay, names)
    if policy:
        add_policy(review, base, head)
    return review


def review_git(
    base_ref: str,
    *,
    config_dir: Path = Path("config"),
    outdir: Path = Path("cdktf.out"),
    names: list[str] | None = None,
    policy: bool = True,
    force_subprocess: bool = False,
    repo: Path | None = None,
    replay: ReplaySettings | None = None,
) -> Review:
    """The working tree (head) against ``base_ref``, checked out in a temporary worktree.

    Raises BaseError when the ref or the base revision cannot be used at all."""
    repo = Path(git(repo or Path.cwd(), "rev-parse", "--show-toplevel"))
    commit = resolve(repo, base_ref)
    head_commit = git(repo, "rev-parse", "--short", "HEAD")
    dirty = bool(git(repo, "status", "--porcelain", "--untracked-files=no"))
    head_config = config_dir if config_dir.is_absolute() else Path.cwd() / config_dir
    try:
        relative_config = head_config.resolve().relative_to(repo.resolve())
    except ValueError as exc:
        raise BaseError(f"--config-dir {config_dir} is not inside the repository {repo}") from exc
    check_output_dir(outdir)  # never the repository or a folder of someone else's files
    # checkov's import (~3-4 s) happens while the head is synthesized; its scan of the head while
    # the base is (processes of their own, so they overlap for real)
    zygote = CheckovZygote() if policy else None
    head = synth_current("head", head_config, outdir, names)
    scratch = Path(tempfile.mkdtemp(prefix="gke-accel-review-out-"))
    pool = ThreadPoolExecutor(max_workers=1)
    runner = zygote.run if zygote else None
    head_scan = start_scan(pool, head, scratch / "scan", runner) if policy else None
    try:
        with worktree(repo, commit) as root:
            base, notes = synth_base(
                root, repo, root / relative_config, scratch / "base", names, force_subprocess=force_subprocess
            )
            review = compare_sides(
                base,
                head,
                base_ref=f"{base_ref} ({commit[:12]})",
                head_ref=f"{head_commit}{' + uncommitted changes' if dirty else ''}",
            )
            # the workloads teams would submit, linted against both configs (review/workloads.py)
            add_workloads(review, root / relative_config, head_config, names, _examples(repo / "config"))
            # the queue replay where admission changes (review/replay.py), while the base's config exists
            if replay is not None:
                add_replay(review, root / relative_config, head_config, (base.stacks, head.stacks), replay, names)
        review.notes[:0] = notes or [f"base synthesized {base.method}"]
        if policy:
            add_policy(review, base, head, head_scan=head_scan, runner=runner)
        return review
    finally:
        if zygote is not None:
            zygote.stop()  # every scan the review needs is done; a head scan nobody needs is cut short
        pool.shutdown(wait=True)
        shutil.rmtree(scratch, ignore_errors=True)
