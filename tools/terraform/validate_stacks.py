#!/usr/bin/env python3
"""validate_stacks.py - `terraform init` + `terraform validate -json` every synthesized stack.

    python tools/terraform/validate_stacks.py [cdktf.out]

For each cdktf.out/stacks/<env>/ (each keeps its own .terraform data dir) runs
    terraform init -backend=false -input=false
    terraform validate -json
prints one summary line per stack and every diagnostic, and exits 1 if any
stack failed init, or has any error OR warning. Stacks with a local backend (dev) are
also planned offline: `terraform plan -refresh=false` with a placeholder access token.

The helm provider (Kueue, JobSet and the queue chart, docs/queues.md) cannot be built from the Go
module proxy. When `terraform init` of a stack with helm resources fails, the stack is validated
again as a copy without them (`cdktf.out/without-helm/<env>/`), and the output says so.

Env: TERRAFORM  terraform command (default `terraform`; may hold arguments,
                e.g. "python tools/terraform/terraform_shim.py").
TF_CLI_CONFIG_FILE is always set to the file written by terraformrc.sh (provider
mirror from build_providers.sh when present, plus a shared plugin cache).
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(cmd, cwd, env):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def fmt_diag(d):
    rng = d.get("range") or {}
    where = f" ({rng['filename']}:{rng.get('start', {}).get('line', '?')})" if rng.get("filename") else ""
    detail = (d.get("detail") or "").strip().replace("\n", "\n      ")
    return f"    {d.get('severity', '?').upper()}: {d.get('summary', '')}{where}" + (f"\n      {detail}" if detail else "")


def validate(stack: Path, tf, env):
    t0 = time.monotonic()
    init = run([*tf, "init", "-backend=false", "-input=false", "-no-color"], stack, env)
    if init.returncode != 0:
        return {"valid": False, "error_count": 1, "warning_count": 0, "init_failed": True,
                "output": (init.stdout + init.stderr).strip()}, time.monotonic() - t0
    val = run([*tf, "validate", "-json", "-no-color"], stack, env)
    try:
        result = json.loads(val.stdout)
    except json.JSONDecodeError:
        result = {"valid": False, "error_count": 1, "warning_count": 0,
                  "output": f"exit {val.returncode}, unparsable output:\n{val.stdout}{val.stderr}"}
    return result, time.monotonic() - t0


def without_helm(stack: Path):
    """A copy of the stack without its helm provider and helm_* resources (and the count removed),
    or None if it has none."""
    doc = json.loads((stack / "cdk.tf.json").read_text())
    resources = doc.get("resource", {})
    helm = {t: resources.pop(t) for t in [t for t in resources if t.startswith("helm_")]}
    if not helm and "helm" not in doc.get("provider", {}):
        return None
    doc.get("provider", {}).pop("helm", None)
    doc.get("terraform", {}).get("required_providers", {}).pop("helm", None)
    gone = {f"{t}.{n}" for t, named in helm.items() for n in named}
    for named in resources.values():
        for body in named.values():
            if "depends_on" in body:
                body["depends_on"] = [d for d in body["depends_on"] if d not in gone]
    for key in ("provider", "resource"):  # Terraform refuses empty blocks
        if key in doc and not doc[key]:
            del doc[key]
    if not doc.get("terraform", {}).get("required_providers", True):
        del doc["terraform"]["required_providers"]
    copy = stack.parent.parent / "without-helm" / stack.name
    copy.mkdir(parents=True, exist_ok=True)
    (copy / "cdk.tf.json").write_text(json.dumps(doc, indent=2))
    return copy, len(gone)


def offline_plan(stack: Path, tf, env):
    """`terraform plan -refresh=false` for a stack with a local backend, fully offline: a placeholder
    access token satisfies the google provider's credential lookup; nothing is refreshed or applied."""
    backend = json.loads((stack / "cdk.tf.json").read_text()).get("terraform", {}).get("backend", {})
    if "local" not in backend:
        return None
    plan_env = dict(env, GOOGLE_OAUTH_ACCESS_TOKEN="offline-plan-placeholder")
    init = run([*tf, "init", "-input=false", "-no-color"], stack, plan_env)
    if init.returncode != 0:
        return False, (init.stdout + init.stderr).strip()[-2000:]
    plan = run([*tf, "plan", "-refresh=false", "-lock=false", "-input=false", "-no-color"], stack, plan_env)
    summary = [line for line in plan.stdout.splitlines() if line.startswith(("Plan:", "No changes"))]
    return plan.returncode == 0, (summary[0] if summary else (plan.stdout + plan.stderr).strip()[-2000:])


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "cdktf.out").resolve()
    stacks = sorted(p.parent for p in (out / "stacks").glob("*/cdk.tf.json"))
    if not stacks:
        print(f"no stacks found under {out}/stacks/*/cdk.tf.json", file=sys.stderr)
        return 2
    # commands run inside each stack dir, so make relative paths absolute
    tf = [os.path.abspath(a) if os.sep in a and os.path.exists(a) else a
          for a in shlex.split(os.environ.get("TERRAFORM", "terraform"))]
    if not shutil.which(tf[0]):
        print(f"terraform command not found: {tf[0]} (set TERRAFORM, or run "
              "tools/terraform/install_terraform_shim.sh .venv)", file=sys.stderr)
        return 2
    rc_file = subprocess.run([str(HERE / "terraformrc.sh")], check=True,
                             capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, TF_CLI_CONFIG_FILE=rc_file, TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
    print(f"terraform: {' '.join(tf)}; TF_CLI_CONFIG_FILE={rc_file}")
    failed = False
    for stack in stacks:
        res, secs = validate(stack, tf, env)
        stripped = without_helm(stack) if res.get("init_failed") else None
        if stripped is not None:
            print(f"{stack.name:<20} init failed (helm provider unavailable?); validating it without its "
                  f"{stripped[1]} helm resources")
            stack = stripped[0]
            res, secs = validate(stack, tf, env)
        errs, warns = res.get("error_count", 0), res.get("warning_count", 0)
        status = "INIT-FAILED" if res.get("init_failed") else ("valid" if res.get("valid") else "INVALID")
        print(f"{stack.name:<20} {status:<11} errors={errs} warnings={warns} {secs:6.1f}s")
        if res.get("output"):
            print("    " + res["output"].replace("\n", "\n    "))
        for d in res.get("diagnostics", []):
            print(fmt_diag(d))
        failed |= bool(errs or warns or not res.get("valid"))
        planned = offline_plan(stack, tf, env) if res.get("valid") and not errs else None
        if planned is not None:
            ok, text = planned
            print(f"{'':<20} offline plan (-refresh=false): {text if ok else 'FAILED: ' + text}")
            failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
