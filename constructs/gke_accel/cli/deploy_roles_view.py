"""``gke-accel deploy-roles``: the IAM roles a deployer needs and the APIs the stack enables, per
environment, from the model only (no provider bindings)."""

from __future__ import annotations

import argparse
import shlex

from gke_accel.cli.common import EXIT_OK, Subcommands, add_command, add_env_args, selected_plans
from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.deploy_needs import deployer_roles, required_services
from gke_accel.tables import MAX_WIDTH, fit_text, render_table


def roles_text(plan: EnvironmentPlan, member: str) -> str:
    roles = deployer_roles(plan)
    project = plan.spec.project_id
    table = render_table(
        ["role", "on", "why"],
        [[r.role, r.scope, r.reason] for r in roles],
        f"{plan.name}: roles for whoever runs Terraform (project {project})",
        max_width=MAX_WIDTH,
    )
    project_roles = [r.role for r in roles if r.scope == "project"]
    commands = [
        "for role in \\",
        *(f"    {role} \\" for role in project_roles[:-1]),
        f"    {project_roles[-1]}; do",
        f'  gcloud projects add-iam-policy-binding {project} --member={shlex.quote(member)} --role="$role"',
        "done",
    ]
    others = [f"  {r.role} on {r.scope}: grant it there ({r.reason})" for r in roles if r.scope != "project"]
    services = ", ".join(s.name.removesuffix(".googleapis.com") for s in required_services(plan))
    lines = [
        table,
        "",
        "grant the project roles:",
        *commands,
        *(["outside the project:", *others] if others else []),
        f"APIs the stack enables (google_project_service, kept on destroy): {services}",
        "Service Usage (serviceusage.googleapis.com) must already be on: it is on in new projects.",
    ]
    commands_start = ("for ", "    roles/", "  gcloud")  # shell lines stay whole, to copy and paste
    return "\n".join(line if line.startswith(commands_start) else fit_text(line) for line in lines)


def cmd_deploy_roles(args: argparse.Namespace) -> int:
    print("\n\n".join(roles_text(plan, args.member) for plan in selected_plans(args)))
    return EXIT_OK


def register(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "deploy-roles",
        "IAM roles a deployer needs and the APIs the stack enables (no provider bindings)",
        "gke-accel deploy-roles --env dev",
        "gke-accel deploy-roles --env prod --member serviceAccount:ci@acme-ml-prod.iam.gserviceaccount.com",
    )
    add_env_args(p, single_file=True)
    p.add_argument(
        "--member",
        default="user:YOU@example.com",
        help="principal for the printed gcloud commands (default: user:YOU@example.com)",
    )
    p.set_defaults(func=cmd_deploy_roles)
