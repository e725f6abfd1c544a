"""``gke-accel manifests``: the platform's Kubernetes objects and Kueue queues as YAML (for GitOps
users and reviewers), and the capacity-versus-quota table that ``synth`` prints."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from gke_accel.cli.common import EXIT_OK, Subcommands, add_command, add_env_args, hidden_alias, selected_plans
from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.objects import apply_stage, cluster_objects
from gke_accel.model.platform.capacity import capacity_rows
from gke_accel.output_dir import claimed_output_dir, staged_output
from gke_accel.tables import MAX_WIDTH, render_table


def capacity_table(plan: EnvironmentPlan) -> str:
    rows = []
    for row in capacity_rows(plan.pools, plan.spec.teams):
        teams = ", ".join(f"{t} {n}" for t, n in sorted(row.team_quotas.items())) or "-"
        status = "OVER-COMMITTED" if row.over_committed else "ok"
        rows.append([row.accelerator, row.resource, f"{row.chips_min}-{row.chips_max}", row.quota_total, teams, status])
    if not rows:
        return ""
    return render_table(
        ["accelerator", "resource", "pools (min-max)", "team quotas", "by team", "check"],
        rows,
        "  capacity vs team quotas:",
        max_width=MAX_WIDTH,
    )


def synth_section(plan: EnvironmentPlan) -> str:
    """Text printed by ``gke-accel synth`` for one environment ("" for nothing)."""
    parts = [capacity_table(plan)]
    parts += [f"  warning: {w}" for w in plan.warnings]
    return "\n".join(p for p in parts if p)


def file_name(manifest: dict[str, object]) -> str:
    """``<stage>-[<namespace>.]<kind>.<name>.yaml``: ``kubectl apply -f <folder>`` reads files in name
    order, so the stage prefix creates namespaces before the objects in them."""
    meta = manifest["metadata"]
    assert isinstance(meta, dict)
    ns = meta.get("namespace")
    return f"{apply_stage(manifest)}-{ns + '.' if ns else ''}{str(manifest['kind']).lower()}.{meta['name']}.yaml"


def environment_manifests(plan: EnvironmentPlan) -> list[dict[str, object]]:
    """Every in-cluster object of ``plan`` (``model.environment.objects``) in apply order: the
    platform's objects, then the Kueue objects (they need Kueue and JobSet installed first:
    docs/queues.md)."""
    return list(cluster_objects(plan).in_apply_order())


def write_manifests(plans: list[EnvironmentPlan], out: str | Path, *, option: str = "--outdir") -> dict[str, int]:
    """Write ``<out>/<env>/<object>.yaml`` for ``plans``. ``out`` then holds exactly these
    environments' current objects: folders of other environments and files of removed objects
    (a deleted team's RoleBinding) are gone. Returns the number of manifests per environment."""
    counts: dict[str, int] = {}
    with claimed_output_dir(out, option=option) as folder:
        old = [p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
        with staged_output(folder, sorted({*old, *(p.name for p in plans)})) as staging:
            for plan in plans:
                manifests = environment_manifests(plan)
                (staging / plan.name).mkdir()
                for manifest in manifests:
                    (staging / plan.name / file_name(manifest)).write_text(
                        yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8"
                    )
                counts[plan.name] = len(manifests)
    return counts


def cmd_manifests(args: argparse.Namespace) -> int:
    plans = selected_plans(args)
    if args.outdir is None:
        for plan in plans:
            sys.stdout.write(f"# environment: {plan.name}\n")
            sys.stdout.write(yaml.safe_dump_all(environment_manifests(plan), sort_keys=False))
        return EXIT_OK
    for name, count in write_manifests(plans, args.outdir).items():
        print(f"{name}: wrote {count} manifests to {Path(args.outdir) / name}")
    return EXIT_OK


def register(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "manifests",
        "write the platform's Kubernetes objects as YAML (no provider bindings)",
        "gke-accel manifests --env dev",
        "gke-accel manifests --env dev --outdir manifests/",
    )
    add_env_args(p, single_file=True)
    hidden_alias(p, "--out", "--outdir")  # its spelling before synth, scan and review's --outdir
    p.add_argument(
        "--outdir",
        help="folder to write <env>/<object>.yaml files to, named so `kubectl apply -f <env>/` works on an "
        "empty cluster (default: print to stdout, in apply order)",
    )
    p.set_defaults(func=cmd_manifests)
