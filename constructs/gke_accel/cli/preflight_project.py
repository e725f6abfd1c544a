"""The part of ``gke-accel preflight`` that asks Google, through ``gcloud`` (it holds the user's login):
is the project reachable with these credentials, and does the deploying account hold the project roles
``gke-accel deploy-roles`` lists (checked only where the caller may read the project's IAM policy).

Each call has a short timeout, so the whole preflight stays within a few seconds; nothing is changed.
Roles granted through a Google group cannot be seen in the policy (the group's members are not listed
there), so a role missing for the account itself but granted to some group is reported as unknown,
not as missing.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Runner = Callable[[Sequence[str]], "Reply"]
TIMEOUT_SECONDS = 8.0


@dataclass(frozen=True)
class Reply:
    returncode: int
    stdout: str
    stderr: str


def run_gcloud(args: Sequence[str]) -> Reply:
    """``gcloud ARGS`` with a timeout; a timeout or a missing binary is a failed reply, not an exception."""
    try:
        proc = subprocess.run(
            ["gcloud", *args, "--quiet"], capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return Reply(1, "", str(err))
    return Reply(proc.returncode, proc.stdout, proc.stderr)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


@dataclass(frozen=True)
class ProjectCheck:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def members_of(account: str) -> tuple[str, ...]:
    """The IAM member strings an account appears as in a policy."""
    if not account:
        return ()
    kind = "serviceAccount" if account.endswith(".gserviceaccount.com") else "user"
    return (f"{kind}:{account}",)


def project_checks(project: str, account: str, roles: Sequence[str], run: Runner = run_gcloud) -> list[ProjectCheck]:
    """Reachability of ``project`` and the account's project roles among ``roles``."""
    reply = run(["projects", "describe", project, "--format=value(projectId)"])
    if reply.returncode != 0 or reply.stdout.strip() != project:
        return [
            ProjectCheck(
                "project",
                False,
                f"{project} is not reachable with these credentials: {_last_line(reply.stderr or reply.stdout)}",
                f"gcloud auth application-default login (as an account with access to {project}), "
                "or fix project_id in the config",
            )
        ]
    checks = [ProjectCheck("project", True, f"{project} reachable")]
    policy_reply = run(["projects", "get-iam-policy", project, "--format=json"])
    if policy_reply.returncode != 0:
        detail = (
            f"not checked: this account may not read the IAM policy of {project} ({_last_line(policy_reply.stderr)})"
        )
        return [*checks, ProjectCheck("roles", True, detail)]
    try:
        policy = json.loads(policy_reply.stdout)
        bindings = [b for b in policy.get("bindings", []) if isinstance(b, dict)]
    except (ValueError, AttributeError):
        return [*checks, ProjectCheck("roles", True, "not checked: gcloud returned no readable IAM policy")]
    mine = set(members_of(account))
    held = {b.get("role") for b in bindings if mine & set(b.get("members", []))}
    via_groups = {b.get("role") for b in bindings if any(str(m).startswith("group:") for m in b.get("members", []))}
    missing = [r for r in roles if r not in held and r not in via_groups]
    unknown = [r for r in roles if r not in held and r in via_groups]
    if not account:
        return [*checks, ProjectCheck("roles", True, "not checked: the credentials name no account")]
    if missing:
        member = next(iter(mine))
        fix = "\n".join(  # one command per line, each whole (to copy and paste)
            f"gcloud projects add-iam-policy-binding {project} --member={shlex.quote(member)} --role={r}"
            for r in missing
        )
        return [*checks, ProjectCheck("roles", False, f"{account} lacks {', '.join(missing)}", fix)]
    note = f" ({', '.join(unknown)} only through a group: not verifiable here)" if unknown else ""
    return [*checks, ProjectCheck("roles", True, f"{account} holds the {len(roles)} project roles{note}")]
