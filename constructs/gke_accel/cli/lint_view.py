"""``gke-accel lint --env ENV FILE...``: whether and where each workload schedules in the
environment, and why not. Exit 0 when every workload can run, 2 otherwise (like ``validate``).

Model only: no provider bindings, no cluster access.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

from gke_accel.cli.common import EXIT_CONFIG, EXIT_OK, add_command, selected_plans
from gke_accel.model import ConfigError, ConfigIssue
from gke_accel.model.core.input_files import input_issues
from gke_accel.model.core.yaml_input import (
    MAX_MANIFEST_BYTES,
    ConfigInputError,
    decode_config,
    read_config_bytes,
    read_limited_stream,
)
from gke_accel.workloads.lint import lint_texts


def _binary_stdin() -> Any:
    """stdin as bytes (a text stream without ``buffer``, as tests pass, is encoded)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer
    return io.BytesIO(sys.stdin.read().encode("utf-8"))


def read_inputs(files: list[str]) -> list[tuple[str, str]]:
    """Each file's text with the config reader's guards: a regular file (no FIFO, device or socket),
    at most MAX_MANIFEST_BYTES, UTF-8; every unreadable file is reported, all at once."""
    texts: list[tuple[str, str]] = []
    issues: list[ConfigIssue] = []
    for name in files:
        shown = "<stdin>" if name == "-" else name
        try:
            if name == "-":
                data = read_limited_stream(_binary_stdin(), MAX_MANIFEST_BYTES, "a manifest file")
            else:
                data = read_config_bytes(Path(name), MAX_MANIFEST_BYTES, "a manifest file")
            text = decode_config(data)
            if name == "-" and not text.strip():  # `workload new ... | lint -` after a failed generation
                issues.append(ConfigIssue("-", "standard input is empty: the command before the pipe wrote nothing"))
                continue
            texts.append((shown, text))
        except ConfigInputError as err:
            issues += input_issues(err, shown)
    if issues:
        raise ConfigError(issues)
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
