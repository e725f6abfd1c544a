"""``gke-accel verify --env ENV [--context CTX] [--smoke]``: the live cluster against the plan.
Read-only unless ``--smoke``. Exit 0 when everything matches, 2 on drift.

The ``kubernetes`` client is imported only by this command.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from gke_accel.catalog import load_catalog
from gke_accel.cli.common import EXIT_CONFIG, EXIT_OK, add_command, selected_plans
from gke_accel.cli.tables import render_table
from gke_accel.workloads.verify import VerifyReport, verify_state
from gke_accel.workloads.verify.check import CheckRow


def report_text(report: VerifyReport) -> str:
    rows = [[r.status, r.area, r.subject, r.detail] for r in report.rows]
    fails = sum(r.status == "FAIL" for r in report.rows)
    table = render_table(
        ["status", "area", "object", "detail"], rows, title=f"{report.environment}: live cluster vs plan"
    )
    return table + f"\n{'OK' if report.ok else 'DRIFT'}: {len(report.rows)} checks, {fails} failed"


def cmd_verify(args: argparse.Namespace) -> int:
    from gke_accel.workloads.verify.live import api_client, read_state
    from gke_accel.workloads.verify.smoke import run_smoke

    reports = []
    client = api_client(args.context, args.kubeconfig)
    namespace = load_catalog().driver_installer.namespace
    for plan in selected_plans(args):
        report = verify_state(plan, read_state(client, namespace))
        if args.smoke:
            extra: list[CheckRow] = run_smoke(client, plan, args.timeout)
            report = VerifyReport(report.environment, report.rows + tuple(extra))
        reports.append(report)
    if args.json:
        print(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        print("\n\n".join(report_text(r) for r in reports))
    return EXIT_OK if all(r.ok for r in reports) else EXIT_CONFIG


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "verify",
        "check the live cluster against the environment's plan",
        "gke-accel verify --env dev",
        "gke-accel verify --env dev --context my-cluster --smoke",
    )
    p.add_argument("--env", action="append", required=True, help="environment name")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    p.add_argument("--context", help="kubeconfig context (default: the current one)")
    p.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    p.add_argument("--smoke", action="store_true", help="also submit a tiny pod per accelerator kind")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for a smoke pod (default 120)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_verify)
