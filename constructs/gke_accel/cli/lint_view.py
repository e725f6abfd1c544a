"""``gke-accel lint --env ENV FILE...``: whether and where each workload schedules in the
environment, and why not. Exit 0 when every workload can run, 2 otherwise (like ``validate``).

Model only: no provider bindings, no cluster access.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gke_accel.cli.common import EXIT_CONFIG, EXIT_OK, add_command, selected_plans
from gke_accel.model import ConfigError, ConfigIssue
from gke_accel.workloads.lint import lint_texts


def read_inputs(files: list[str]) -> list[tuple[str, str]]:
    texts = []
    for name in files:
        if name == "-":
            text = sys.stdin.read()
            if not text.strip():  # `workload new ... | lint -` after a failed generation: fail the pipe
                raise ConfigError(
                    [ConfigIssue("-", "standard input is empty: the command before the pipe wrote nothing")]
                )
            texts.append(("<stdin>", text))
            continue
        try:
            texts.append((name, Path(name).read_text(encoding="utf-8")))
        except OSError as exc:
            raise ConfigError([ConfigIssue(name, f"cannot be read: {exc.strerror or exc}")]) from None
    return texts


def cmd_lint(args: argparse.Namespace) -> int:
    texts = read_inputs(args.files)
    reports = [lint_texts(plan, texts) for plan in selected_plans(args)]
    if args.json:
        print(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        print("\n\n".join(r.render() for r in reports))
    return EXIT_OK if all(r.ok for r in reports) else EXIT_CONFIG


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "lint",
        "will these workloads schedule in the environment, and why not",
        "gke-accel lint --env dev job.yaml",
        "gke-accel workload new --env dev --team nlp --accelerator l4 --image IMG | gke-accel lint --env dev -",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML files (multi-document); '-' for stdin")
    p.add_argument("--env", action="append", required=True, help="environment name (repeatable)")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_lint)
