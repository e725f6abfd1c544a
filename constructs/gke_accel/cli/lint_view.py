"""``gke-accel lint --env ENV FILE...``: whether and where each workload schedules in the
environment, and why not. Exit 0 when every workload can run, 2 otherwise (like ``validate``).

Model only: no provider bindings. With ``--kubeconfig`` or ``--context`` it also reads the cluster's
Kueue ClusterQueues (read-only, through verify's deadlines and guards) and warns when a workload needs
more than its team can get beside what Kueue already admitted (``quota-now``); a cluster it cannot read
is one line and exit 1.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

from gke_accel.cli.common import EXIT_CONFIG, EXIT_ERROR, EXIT_OK, add_command, selected_plans
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


CLUSTER_QUEUES = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"


def read_cluster_queues(context: str | None, kubeconfig: str | None) -> tuple[list[dict[str, Any]], str]:
    """The cluster's ClusterQueues (Kueue v1beta2) and where they were read; CannotCheck otherwise."""
    from gke_accel.workloads.verify.live import CannotCheck, connect, items

    conn = connect(context, kubeconfig)
    try:
        found = items(conn, CLUSTER_QUEUES)
    except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:
        raise CannotCheck(f"an answer of {conn.server} has an unexpected shape ({type(exc).__name__})") from None
    if found is None:
        raise CannotCheck(f"{conn.server} serves no Kueue v1beta2 ClusterQueues (GET {CLUSTER_QUEUES}: 404)")
    return found, f"{conn.server} (context {conn.context or 'current'})"


def cmd_lint(args: argparse.Namespace) -> int:
    texts = read_inputs(args.files)
    plans = selected_plans(args)
    live: list[dict[str, Any]] | None = None
    if args.kubeconfig or args.context:
        from gke_accel.workloads.verify.live import CannotCheck

        if len(plans) != 1:
            raise ConfigError([ConfigIssue("--env", f"given {len(plans)} times with --kubeconfig/--context",
                                           "one environment: the one the cluster runs")])  # fmt: skip
        try:
            live, where = read_cluster_queues(args.context, args.kubeconfig)
        except CannotCheck as exc:
            print(f"error: cannot read the cluster: {exc}", file=sys.stderr)
            return EXIT_ERROR
        print(f"quota in use read from {len(live)} ClusterQueue(s) of {where}", file=sys.stderr)
    reports = [lint_texts(plan, texts, cluster_queues=live) for plan in plans]
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
        "gke-accel lint --env staging --kubeconfig ~/.kube/config job.yaml   # also against the quota in use",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML files (multi-document); '-' for stdin")
    p.add_argument("--env", action="append", required=True, help="environment name (repeatable)")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--context", help="also read the quota Kueue has admitted, from this kubeconfig context")
    p.add_argument("--kubeconfig", help="also read the quota Kueue has admitted, from this kubeconfig file "
                   "(a real cluster's or the twin's)")  # fmt: skip
    p.set_defaults(func=cmd_lint)
