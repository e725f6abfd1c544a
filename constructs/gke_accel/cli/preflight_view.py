"""``gke-accel preflight --env ENV``: what a deploy needs on this machine, checked in about a second
before any npm, synth or ``terraform init`` (``make deploy`` runs it first).

First the local checks (no network, no Google libraries): Application Default Credentials, found where
the Google auth libraries look (``GOOGLE_APPLICATION_CREDENTIALS``, then
``$CLOUDSDK_CONFIG/application_default_credentials.json``, ``~/.config/gcloud/...``; on Compute
Engine the metadata server), the account they belong to, ``gcloud`` and ``gke-gcloud-auth-plugin``
(the kubernetes and helm providers authenticate through it). When they pass, ``gcloud`` is asked
whether the project is reachable and whether the account holds the project roles ``gke-accel
deploy-roles`` lists (``preflight_project.py``; ``--local-only`` skips that). Each missing piece comes
with the one command that fixes it.
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from gke_accel.cli.common import EXIT_ERROR, EXIT_OK, Subcommands, add_command, add_env_args, selected_plans
from gke_accel.cli.preflight_project import Runner, project_checks, run_gcloud
from gke_accel.model.environment.deploy_needs import deployer_roles
from gke_accel.tables import fit_text

ADC_FILE = "application_default_credentials.json"
GCE_PRODUCT = Path("/sys/class/dmi/id/product_name")  # "Google Compute Engine" on GCE VMs


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""  # the one command (or step) that fixes it


def gcloud_dir(env: Mapping[str, str], home: Path) -> Path:
    return Path(env["CLOUDSDK_CONFIG"]) if env.get("CLOUDSDK_CONFIG") else home / ".config" / "gcloud"


def _gcloud_account(config_dir: Path) -> tuple[str, str]:
    """(account, project) of gcloud's active configuration, read from its files ("" when unset)."""
    active = (config_dir / "active_config").read_text().strip() if (config_dir / "active_config").is_file() else ""
    parser = configparser.ConfigParser()
    try:
        parser.read(config_dir / "configurations" / f"config_{active or 'default'}")
    except configparser.Error:
        return "", ""
    return parser.get("core", "account", fallback=""), parser.get("core", "project", fallback="")


def credentials_check(env: Mapping[str, str], home: Path, on_gce: bool) -> Check:
    name = "Application Default Credentials"
    login = "gcloud auth application-default login"
    explicit = env.get("GOOGLE_APPLICATION_CREDENTIALS")
    path = Path(explicit) if explicit else gcloud_dir(env, home) / ADC_FILE
    if not path.is_file():
        if explicit:
            return Check(
                name, False, f"GOOGLE_APPLICATION_CREDENTIALS={explicit}: no such file", f"unset it, or {login}"
            )
        if on_gce:
            return Check(name, True, "none in a file; the Compute Engine metadata server provides them")
        return Check(name, False, f"none found ({path}; GOOGLE_APPLICATION_CREDENTIALS is not set)", login)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return Check(name, False, f"{path} cannot be read as JSON ({err})", login)
    kind = data.get("type", "?") if isinstance(data, dict) else "?"
    if kind not in ("authorized_user", "service_account", "external_account", "impersonated_service_account"):
        return Check(name, False, f"{path}: unknown credential type {kind!r}", login)
    account = (
        "" if kind == "external_account" else (data.get("client_email") or _gcloud_account(gcloud_dir(env, home))[0])
    )
    return Check(name, True, f"{path} ({kind}{', ' + account if account else ''})")


def adc_account(env: Mapping[str, str], home: Path) -> str:
    """The account the credentials act as: the key's service account, else gcloud's login ("" unknown)."""
    explicit = env.get("GOOGLE_APPLICATION_CREDENTIALS")
    path = Path(explicit) if explicit else gcloud_dir(env, home) / ADC_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    email = data.get("client_email") if isinstance(data, dict) else None
    return str(email) if email else _gcloud_account(gcloud_dir(env, home))[0]


def tool_check(tool: str, which: Callable[[str], str | None], fix: str, why: str) -> Check:
    found = which(tool)
    return Check(tool, bool(found), found or f"not on PATH ({why})", "" if found else fix)


def run_checks(
    project: str,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    which: Callable[[str], str | None] = shutil.which,
    on_gce: bool | None = None,
    project_roles: tuple[str, ...] = (),
    run: Runner | None = None,
) -> list[Check]:
    """The local checks; with ``run`` (``gcloud``) and when they pass, the project and its roles too."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    if on_gce is None:
        on_gce = GCE_PRODUCT.is_file() and "Google" in GCE_PRODUCT.read_text(errors="replace")
    checks = [
        credentials_check(env, home, on_gce),
        tool_check("gcloud", which, "install the Google Cloud CLI: https://cloud.google.com/sdk/docs/install", "login"),
        tool_check(
            "gke-gcloud-auth-plugin",
            which,
            "gcloud components install gke-gcloud-auth-plugin",
            "the kubernetes and helm providers authenticate with it",
        ),
    ]
    _, gcloud_project = _gcloud_account(gcloud_dir(env, home))
    if gcloud_project and gcloud_project != project:
        checks.append(Check("gcloud project", True, f"{gcloud_project} (the stack deploys to {project} regardless)"))
    if run is not None and all(c.ok for c in checks):
        found = project_checks(project, adc_account(env, home), project_roles, run)
        checks += [Check(c.name, c.ok, c.detail, c.fix) for c in found]
    return checks


def report(env_name: str, project: str, checks: list[Check]) -> tuple[str, bool]:
    lines = [f"preflight {env_name} (project {project}):"]
    lines += [f"  {'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}" for c in checks]
    failed = [c for c in checks if not c.ok]
    if failed:
        for i, c in enumerate(failed):
            first, *more = c.fix.splitlines() or [""]
            lines.append(f"deploy stopped before anything ran; fix: {first}" if i == 0 else f"  then: {first}")
            lines += [f"  then: {cmd}" for cmd in more]
    elif not any(c.name == "roles" for c in checks):
        lines.append(f"  roles are not checked here: 'gke-accel deploy-roles --env {env_name}' lists them")
    return "\n".join(lines), not failed


def cmd_preflight(args: argparse.Namespace) -> int:
    ok = True
    for plan in selected_plans(args):
        roles = tuple(r.role for r in deployer_roles(plan) if r.scope == "project")
        run = None if args.local_only else run_gcloud
        text, passed = report(
            plan.name, plan.spec.project_id, run_checks(plan.spec.project_id, project_roles=roles, run=run)
        )
        commands = ("gcloud ", "then: gcloud ", "deploy stopped before anything ran; fix: gcloud ")
        shown = "\n".join(line if line.strip().startswith(commands) else fit_text(line) for line in text.splitlines())
        print(shown, file=sys.stdout if passed else sys.stderr)  # commands stay whole, to copy and paste
        ok = ok and passed
    return EXIT_OK if ok else EXIT_ERROR


def register(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "preflight",
        "check this machine can deploy (credentials, gcloud, auth plugin, project, roles) before any synth",
        "gke-accel preflight --env dev",
        details="Exit 0 when everything is there, 1 with the command that fixes the first missing piece.",
    )
    add_env_args(p, single_file=True)
    p.add_argument(
        "--local-only",
        action="store_true",
        help="only this machine's credentials and tools; do not ask gcloud about the project and roles",
    )
    p.set_defaults(func=cmd_preflight)
