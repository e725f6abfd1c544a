"""``gke-accel fleet``: a MultiKueue fleet (docs/fleet.md).

- ``fleet show MANAGER``: the workers in dispatch order and what each offers each team (offline);
- ``fleet where JOB -n NS``: where a job submitted to the manager went and why, from the manager's
  Workload as the server has it (its cluster, the workers nominated so far, the MultiKueue check's message);
- ``fleet up MANAGER``: the whole fleet on local control planes (gke_accel/twin/fleet.py), in the
  foreground until Ctrl-C, printing each cluster's KUBECONFIG.

Errors are one message, never a traceback; a config mistake exits 2 with every mistake listed."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gke_accel.cli.common import EXIT_ERROR, EXIT_OK, add_command
from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.teams.accelerators import accelerator_name

INTERRUPTED = 130


def _manager(args: argparse.Namespace) -> EnvironmentPlan:
    plan = load_environment(Path(args.config_dir) / f"{args.manager}.yaml")  # ConfigError: exit 2
    return plan


def show_text(plan: EnvironmentPlan) -> str:
    """The fleet of a manager, as ``fleet show`` prints it."""
    from gke_accel.catalog import load_catalog

    fleet = plan.fleet
    if fleet is None:
        return f"{plan.name} is not a fleet manager (no fleet: block)"
    catalog = load_catalog()
    how = ("ordered: the first worker alone, the next one joins after each 5-minute round without admission"
           if fleet.spec.dispatch == "ordered" else "all at once: every worker, the first to admit wins")  # fmt: skip
    lines = [f"{plan.name}: fleet manager in {plan.spec.region} ({plan.spec.project_id}); dispatch {how}",
             f"  access: {fleet.spec.access}; worker lost after {fleet.spec.worker_lost_timeout_seconds}s"]  # fmt: skip
    for i, w in enumerate(fleet.workers, 1):
        lines.append(f"  {i}. {w.name}: cluster {w.cluster} in {w.region} ({w.project_id})")
        offers = [o for o in fleet.offers if o.worker == w.name]
        for team in sorted({o.team for o in offers}):
            what = ", ".join(f"{o.chips} {accelerator_name(o.accelerator, catalog)}" for o in offers if o.team == team)
            lines.append(f"       {team}: up to {what}")
    if plan.queues is not None:
        for t in plan.queues.teams:
            caps = ", ".join(f"{q.nominal} {accelerator_name(plan.queues.flavor(q.flavor).accelerator, catalog)}"
                             for q in t.quotas if q.nominal)  # fmt: skip
            lines.append(f"  team {t.team}: at most {caps or 'nothing'} in flight across the fleet (manager quota)")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    print(show_text(_manager(args)))
    return EXIT_OK


def where_text(workload: dict[str, Any] | None, job: str, order: list[str]) -> str:
    """Where a job went and why, from the manager's Workload (Kueue v1beta2 status: clusterName,
    nominatedClusterNames, admissionChecks[].state/message)."""
    if workload is None:
        return f"{job}: no Workload on the manager yet (not submitted to a LocalQueue, or Kueue has not seen it)"
    status = workload.get("status", {})
    checks = status.get("admissionChecks") or []
    check = " ".join(f"[{c.get('name')}: {c.get('state')}] {c.get('message', '')}".strip() for c in checks)
    where = status.get("clusterName")
    nominated = status.get("nominatedClusterNames") or []
    if where:
        head = f"{job}: runs on {where}"
        rank = order.index(where) + 1 if where in order else 0
        why = f"worker {rank} of {len(order)} in dispatch order" if rank else ""
        if rank > 1:
            why += f"; the workers before it ({', '.join(order[: rank - 1])}) did not admit it first"
        return "\n".join(x for x in (head, f"  why: {why}" if why else "", f"  check: {check}" if check else "") if x)
    reserved = any(c.get("type") == "QuotaReserved" and c.get("status") == "True" for c in status.get("conditions", []))
    if not reserved:
        return f"{job}: waiting in the manager's queue (no quota reserved on the manager yet)"
    lines = [f"{job}: offered to {', '.join(nominated) or 'no worker yet'}; no worker has admitted it"]
    rest = [w for w in order if w not in nominated]
    if rest:
        lines.append(f"  next: {rest[0]} joins when the current round ends without an admission")
    if check:
        lines.append(f"  check: {check}")
    return "\n".join(lines)


def cmd_where(args: argparse.Namespace) -> int:
    from gke_accel.twin.client import kubectl_binary

    plan = _manager(args)
    order = list(plan.fleet.order) if plan.fleet is not None else []
    base = [kubectl_binary(), *(["--kubeconfig", args.kubeconfig] if args.kubeconfig else [])]
    got = subprocess.run([*base, "get", "workloads.kueue.x-k8s.io", "-n", args.namespace, "-o", "json"],
                         capture_output=True, text=True)  # fmt: skip
    if got.returncode != 0:
        print(f"error: cannot read the manager's Workloads: {got.stderr.strip()[:300]}", file=sys.stderr)
        return EXIT_ERROR
    mine = [w for w in json.loads(got.stdout)["items"]
            if any(o.get("name") == args.job for o in w["metadata"].get("ownerReferences", []))]  # fmt: skip
    print(where_text(mine[0] if mine else None, args.job, order))
    return EXIT_OK


def cmd_up(args: argparse.Namespace) -> int:
    from gke_accel.twin.fleet import FleetRun

    started = time.monotonic()

    def step(message: str) -> None:
        print(f"fleet up [{time.monotonic() - started:5.1f}s] {message}", file=sys.stderr, flush=True)

    state = Path(args.state).resolve()
    try:
        with FleetRun.start(args.manager, state, config_dir=Path(args.config_dir),
                            worker_lost_timeout=args.worker_lost_timeout, on_step=step) as fleet:  # fmt: skip
            print(f"fleet {args.manager} up in {fleet.start_seconds:.0f} s; logs under {state}")
            for name, run in [(args.manager, fleet.manager), *fleet.workers.items()]:
                print(f"  {name}: export KUBECONFIG={run.cluster.kubeconfig}")
            print("Ctrl-C stops every cluster", flush=True)
            while True:
                fleet.manager.cluster.check_alive()
                time.sleep(2)
    except KeyboardInterrupt:
        print("fleet up: stopped", file=sys.stderr)
        return INTERRUPTED
    except (RuntimeError, TimeoutError, OSError, ValueError) as exc:
        print(f"error: fleet {args.manager} did not start (everything started is stopped): "
              f"{' '.join(str(exc).splitlines()[:1])[:300]}", file=sys.stderr)  # fmt: skip
        return EXIT_ERROR


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "fleet",
        "a MultiKueue fleet: its workers and offers, where a job went, the fleet on local control planes",
        "gke-accel fleet show fleet-hub --config-dir examples/fleet",
        "gke-accel fleet where train -n nlp --config-dir examples/fleet --manager fleet-hub",
        "gke-accel fleet up fleet-hub --config-dir examples/fleet",
        details="docs/fleet.md has the details.",
    )
    fleet_sub = p.add_subparsers(dest="fleet_command", required=True, metavar="ACTION")
    show = add_command(fleet_sub, "show", "the workers in dispatch order and what each offers each team",
                       "gke-accel fleet show fleet-hub --config-dir examples/fleet")  # fmt: skip
    show.add_argument("manager", help="the manager environment")
    show.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    show.set_defaults(func=cmd_show)
    where = add_command(fleet_sub, "where", "where a job submitted to the manager went, and why",
                        "gke-accel fleet where train -n nlp --manager fleet-hub")  # fmt: skip
    where.add_argument("job", help="the Job (or JobSet) name on the manager")
    where.add_argument("-n", "--namespace", required=True, help="its namespace (the team's)")
    where.add_argument("--manager", required=True, help="the manager environment")
    where.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    where.add_argument("--kubeconfig", help="the manager cluster's kubeconfig (default: kubectl's)")
    where.set_defaults(func=cmd_where)
    up = add_command(fleet_sub, "up", "the fleet on local control planes until Ctrl-C (docs/fleet.md)",
                     "gke-accel fleet up fleet-hub --config-dir examples/fleet")  # fmt: skip
    up.add_argument("manager", help="the manager environment")
    up.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    up.add_argument("--state", default="fleet-twin", help="folder for the clusters' data and logs")
    up.add_argument("--worker-lost-timeout", type=int, help="seconds (default: the manager's config)")
    up.set_defaults(func=cmd_up)
