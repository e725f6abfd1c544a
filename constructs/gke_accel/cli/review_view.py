"""``gke-accel review --base <ref>``: what a pull request does to resources, capacity, quotas, cost
and policy, from the synthesized stacks of the working tree and of the base revision.

Exit codes: 0 no changes, 2 changes, 1 error (including a config error in the working tree, found
before anything is synthesized); with ``--fail-on-destroy`` destructive changes exit 3.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gke_accel.cli.common import Subcommands, add_command
from gke_accel.model import ConfigError
from gke_accel.model.environment.config_files import load_environments
from gke_accel.review.model import EXIT_ERROR


def cmd_review(args: argparse.Namespace) -> int:
    from gke_accel.review.compare import review_git
    from gke_accel.review.git_base import BaseError
    from gke_accel.review.render import failure_markdown, to_json, to_markdown
    from gke_accel.review.replay import ReplaySettings

    # Fail in a second, before any synthesis, on a config error in the working tree (an unknown base
    # ref is reported by review_git before it synthesizes anything either).
    present = {f.stem for f in Path(args.config_dir).glob("*.yaml")}
    wanted = [n for n in (args.env or sorted(present)) if n in present]  # removed environments: in the review
    try:
        if wanted:
            load_environments(Path(args.config_dir), wanted)
    except ConfigError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_ERROR
    try:
        review = review_git(
            args.base,
            config_dir=Path(args.config_dir),
            outdir=Path(args.outdir),
            names=args.env or None,
            policy=not args.no_policy,
            force_subprocess=args.base_subprocess,
            replay=ReplaySettings(mode=args.replay, hours=args.replay_hours, budget=args.replay_budget),
        )
    except BaseError as err:
        print(f"review: {err}", file=sys.stderr)
        if args.markdown:  # replaces an older review comment instead of leaving it standing
            Path(args.markdown).write_text(failure_markdown(str(err), base_ref=args.base), encoding="utf-8")
        return EXIT_ERROR
    markdown = to_markdown(review)
    if args.markdown:
        Path(args.markdown).write_text(markdown, encoding="utf-8")
    else:
        sys.stdout.write(markdown)
    if args.json:
        Path(args.json).write_text(to_json(review, fail_on_destroy=args.fail_on_destroy), encoding="utf-8")
    for error in review.errors:
        print(error, file=sys.stderr)
    return review.exit_code(fail_on_destroy=args.fail_on_destroy)


def register(sub: Subcommands) -> None:
    """Add ``review``."""
    p = add_command(
        sub,
        "review",
        "compare the working tree with a base revision: resources, capacity, quotas, cost, policy",
        "gke-accel review --base origin/main",
        "gke-accel review --base HEAD~1 --json review.json --fail-on-destroy",
        details=(__doc__ or "").split("\n\n", 1)[1],
    )
    p.add_argument("--base", required=True, help="git ref of the base revision (e.g. origin/main)")
    p.add_argument("--env", action="append", help="environment name (repeatable); default: all")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    p.add_argument("--outdir", default="cdktf.out", help="where the head is synthesized (default: cdktf.out)")
    p.add_argument("--markdown", metavar="FILE", help="write the Markdown here instead of stdout")
    p.add_argument("--json", metavar="FILE", help="also write the review as JSON")
    p.add_argument("--fail-on-destroy", action="store_true", help="exit 3 when anything is destroyed or replaced")
    p.add_argument("--no-policy", action="store_true", help="skip the checkov comparison")
    p.add_argument("--base-subprocess", action="store_true", help="synthesize the base in a separate process (slower)")
    p.add_argument(
        "--replay",
        choices=("auto", "always", "never"),
        default="auto",
        help="queue replay through the twin: when admission changes (auto, default), always, never",
    )
    p.add_argument(
        "--replay-hours",
        type=_positive,
        default=12.0,
        metavar="H",
        help="hours of the standard trace replayed (default 12)",
    )
    p.add_argument(
        "--replay-budget",
        type=_positive,
        default=600.0,
        metavar="S",
        help="wall seconds for every replay of the review; past it the replay is skipped (default 600)",
    )
    p.set_defaults(func=cmd_review)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 < value <= 10_000):  # nan fails too
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number above 0 and at most 10000")
    return value
