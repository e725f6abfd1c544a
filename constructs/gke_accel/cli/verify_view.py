"""``gke-accel verify --env ENV [--context CTX] [--smoke]``: the live cluster against the plan.
Read-only unless ``--smoke``. Exit 0 when everything matches, 2 on drift, 1 when it cannot check
(no or broken kubeconfig, another cluster's context, an unreachable or silent server).

The ``kubernetes`` client is imported only by this command.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gke_accel.catalog import load_catalog
from gke_accel.cli.common import EXIT_CONFIG, EXIT_ERROR, EXIT_OK, add_command, selected_plans
from gke_accel.model import ConfigError
from gke_accel.tables import render_table
from gke_accel.workloads.verify import VerifyReport, verify_state
from gke_accel.workloads.verify.check import CheckRow, expected_objects


def report_text(report: VerifyReport) -> str:
    rows = [[r.status, r.area, r.subject, r.detail] for r in report.rows]
    fails = sum(r.status == "FAIL" for r in report.rows)
    table = render_table(
        ["status", "area", "object", "detail"], rows, title=f"{report.environment}: live cluster vs plan"
    )
    return table + f"\n{'OK' if report.ok else 'DRIFT'}: {len(report.rows)} checks, {fails} failed"


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0: everything matches; 2: drift; 1: cannot check (the message names the next step)."""
    from gke_accel.workloads.verify.context import context_row, get_credentials
    from gke_accel.workloads.verify.controllers import controller_deployments
    from gke_accel.workloads.verify.live import CannotCheck, connect, read_state
    from gke_accel.workloads.verify.smoke import run_smoke

    plans = selected_plans(args)
    reports = []
    try:
        conn = connect(args.context, args.kubeconfig)
        for plan in plans:
            row = context_row(plan, conn.context, conn.server, conn.servers)
            if isinstance(row, str):
                raise CannotCheck(row)
            manifests = expected_objects(plan)
            namespaces = [load_catalog().driver_installer.namespace, *(ns for ns, _ in controller_deployments(plan))]
            kinds = [(m["apiVersion"], m["kind"]) for m in manifests]
            kinds += [("apps/v1", "Deployment")] if controller_deployments(plan) else []
            report = verify_state(plan, read_state(conn, kinds, namespaces))
            report = VerifyReport(report.environment, (row, *report.rows))
            if args.smoke:
                extra: list[CheckRow] = run_smoke(conn.client, plan, args.timeout)
                report = VerifyReport(report.environment, report.rows + tuple(extra))
            reports.append(report)
    except CannotCheck as exc:
        hint = "; ".join(get_credentials(p) for p in plans)
        print(f"error: cannot check: {exc}", file=sys.stderr)
        if "run: gcloud" not in str(exc) and "not a Kubernetes API server" not in str(exc):
            print(f"  next: check the context and the cluster's access, e.g. {hint}", file=sys.stderr)
        return EXIT_ERROR
    except ConfigError:
        raise
    except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:  # a shape no check expected
        print(f"error: cannot check: an answer of {conn.server} has an unexpected shape ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:120]}); no drift is reported from it", file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
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
