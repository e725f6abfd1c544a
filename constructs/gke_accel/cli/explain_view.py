"""``gke-accel explain JOB --env ENV [--team T] [--json]``: read the live cluster and say in one
screen what holds the job: Kueue admission (quota, cohort, queue position, admission checks),
preemption (by which workload, why), scheduling (the scheduler's reason in the pools' terms) or
where it runs. Read-only. Exit 0 when explained, 1 when the cluster cannot be read."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gke_accel.cli.common import EXIT_ERROR, EXIT_OK, add_command, selected_plans
from gke_accel.model import ConfigError, ConfigIssue
from gke_accel.model.platform.rules import team_namespace


def cmd_explain(args: argparse.Namespace) -> int:
    from gke_accel.workloads.explain import explain
    from gke_accel.workloads.explain.read import read_job
    from gke_accel.workloads.nodes import pool_nodes
    from gke_accel.workloads.verify.live import CannotCheck, connect

    if len(args.env) != 1:
        raise ConfigError([ConfigIssue("--env", f"given {len(args.env)} times ({', '.join(args.env)})",
                                       "one environment: the one whose cluster runs the job")])  # fmt: skip
    [plan] = selected_plans(args)
    teams = {t.name: team_namespace(t.name, t.namespace) for t in plan.spec.teams}
    if args.team is not None and args.team not in teams:
        print(f"error: --team {args.team!r} is not a team of {plan.name}: {', '.join(sorted(teams))}", file=sys.stderr)
        return EXIT_ERROR
    namespaces = [teams[args.team]] if args.team else sorted(teams.values())
    try:
        conn = connect(args.context, args.kubeconfig)
        found = None
        for ns in namespaces:
            observed = read_job(conn, ns, args.job)
            if observed.job is not None or ns == namespaces[-1]:
                found = observed
            if observed.job is not None:
                break
        assert found is not None
        result = explain(found, pool_nodes(plan))
    except CannotCheck as exc:
        print(f"error: cannot read the cluster: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:  # an answer of a shape no check read
        print(f"error: cannot read the cluster: an answer of {conn.server} has an unexpected shape "
              f"({type(exc).__name__}: {' '.join(str(exc).split())[:120]}); nothing is explained from it",
              file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.render())
    return EXIT_OK


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "explain",
        "say what holds a job: queueing, preemption, scheduling, or where it runs",
        "gke-accel explain train-llm --env staging --team nlp",
        "gke-accel explain train-llm --env staging --json",
    )
    p.add_argument("job", help="the Job or JobSet name")
    p.add_argument("--env", action="append", required=True, help="environment name")
    p.add_argument("--team", help="the team whose namespace holds the job (default: search every team's)")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    p.add_argument("--context", help="kubeconfig context (default: the current one)")
    p.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_explain)
