#!/usr/bin/env python3
"""validate_stacks.py - validate (and plan offline) every synthesized stack with the real providers.

    python tools/terraform/validate_stacks.py [cdktf.out]

For each cdktf.out/stacks/<env>/cdk.tf.json, in a scratch copy (cdktf.out is left as synthesized):
  - the provider version constraints are rewritten to the builds in the provider mirror
    (tools/terraform/build_providers.sh), and each stack prints the version it pins next to the
    build it is validated with (and the Go module that build came from, when recorded);
  - the backend is replaced by a local one in the scratch folder (nothing reaches a bucket);
  - terraform init, terraform validate -json: any error OR warning fails the run;
  - terraform plan -refresh=false offline, with a placeholder access token (and placeholder values
    for input variables without a default, e.g. the PagerDuty key). A stack that reads a
    data source needing the cloud API (data.google_project) cannot plan offline and says so.
    The helm provider locates every release's chart at plan time (it pulls an OCI chart from its
    registry); for the plan only, a release of a pinned OCI chart (Kueue, JobSet) reads the same chart
    from its Go module at the pinned tag instead (`charts/<chart>`, as tests/charts.py and the e2e tier
    do; the projects package their OCI charts from there), and the output says which.
Exit 0 all valid and planned, 1 any error or warning or failed plan, 2 usage.

Every resource is validated and planned, the `helm_release`s (Kueue, JobSet, the queue chart, the
fences, the ComputeClasses; docs/queues.md) with the helm provider built from its Go module like the
others: nothing is left out. A stack whose init fails (a provider missing from the mirror) fails.

The last line sums it up: `terraform: 3/3 stacks valid (google 8.0.0, helm 3.2.0, kubernetes 3.2.1);
9 helm releases validated and planned`; with GKE_ACCEL_VALIDATE_SUMMARY=<file> the same facts are
written there as JSON (.ci/run reads it; `helm_releases` counts the releases of the valid stacks).

Env: TERRAFORM  terraform command (default `terraform`; may hold arguments,
                e.g. "python tools/terraform/terraform_shim.py").
     GKE_ACCEL_CACHE  cache root holding terraform-mirror/ (default ~/.cache/gke-accel).
TF_CLI_CONFIG_FILE is always set to the file written by terraformrc.sh (provider
mirror from build_providers.sh when present, plus a shared plugin cache).
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRROR = Path(os.environ.get("GKE_ACCEL_CACHE", Path.home() / ".cache" / "gke-accel")) / "terraform-mirror"
# Data sources that call the cloud API even with -refresh=false: their stacks cannot plan offline.
ONLINE_DATA_SOURCES = {"google_project": "reads the project number from the Resource Manager API"}


def _version_key(version):
    return tuple(int(p) if p.isdigit() else -1 for p in version.replace("-", ".").split("."))


def mirror_builds(mirror=MIRROR):
    """{provider name: (version label, source note)} of the newest build per hashicorp provider."""
    builds = {}
    for binary in sorted(mirror.glob("registry.terraform.io/hashicorp/*/*/*/terraform-provider-*")):
        if binary.name.endswith(".source") or not os.access(binary, os.X_OK):
            continue
        name, version = binary.parents[2].name, binary.parents[1].name
        source = binary.with_name(binary.name + ".source")
        note = source.read_text().strip() if source.exists() else "Go module source not recorded"
        if name not in builds or _version_key(version) > _version_key(builds[name][0]):
            builds[name] = (version, note)
    return builds


def scratch_copy(stack: Path, scratch: Path, builds):
    """Copy the stack to ``scratch`` with pins rewritten to the mirror builds and a local backend;
    returns the lines that say what was pinned and what is validated."""
    doc = json.loads((stack / "cdk.tf.json").read_text())
    terraform = doc.setdefault("terraform", {})
    lines = []
    for name, req in sorted(terraform.get("required_providers", {}).items()):
        pinned = req.get("version", "(none)")
        if name in builds:
            built, note = builds[name]
            req["version"] = built
            lines.append(f"{name} pinned {pinned} -> validated with build {built} ({note})")
        else:
            lines.append(f"{name} pinned {pinned} -> no mirror build; terraform init installs {pinned}")
    if "backend" in terraform:
        terraform["backend"] = {"local": {"path": "terraform.tfstate"}}
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "cdk.tf.json").write_text(json.dumps(doc, indent=2))
    for asset in stack.iterdir():  # assets next to the stack (none today), as synthesized
        if asset.name != "cdk.tf.json" and not asset.name.startswith((".terraform", "terraform.")):
            (shutil.copytree if asset.is_dir() else shutil.copy2)(asset, scratch / asset.name)
    return lines


def run(cmd, cwd, env):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def fmt_diag(d):
    rng = d.get("range") or {}
    where = f" ({rng['filename']}:{rng.get('start', {}).get('line', '?')})" if rng.get("filename") else ""
    detail = (d.get("detail") or "").strip().replace("\n", "\n      ")
    return f"    {d.get('severity', '?').upper()}: {d.get('summary', '')}{where}" + (f"\n      {detail}" if detail else "")


def validate(stack: Path, tf, env):
    t0 = time.monotonic()
    init = run([*tf, "init", "-input=false", "-no-color"], stack, env)
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


def oci_chart_modules():
    """{OCI repository: Go module} of the charts the stacks pin (gke_accel.model.queues.install)."""
    sys.path.insert(0, str(HERE.parents[1] / "constructs"))
    from gke_accel.model.queues.install import JOBSET, KUEUE

    return {r.repository: r.go_module for r in (KUEUE, JOBSET)}


def module_charts(doc, modules=None, download=None):
    """Point every helm_release of a known OCI repository at ``charts/<chart>`` of its Go module at
    ``v<version>`` (in place); returns one line per release changed. An OCI chart of no known module
    raises ValueError (it cannot be planned offline)."""
    modules = oci_chart_modules() if modules is None else modules
    download = download or _module_dir
    lines = []
    for name, body in sorted(doc.get("resource", {}).get("helm_release", {}).items()):
        repository = body.get("repository", "")
        if not repository.startswith("oci://"):
            continue
        if repository not in modules:
            raise ValueError(f"helm_release.{name}: no Go module known for {repository} (oci_chart_modules)")
        source = f"{modules[repository]}@v{body['version']}"
        body["chart"] = str(download(source) / "charts" / body["chart"])
        del body["repository"]
        lines.append(f"helm_release.{name}: chart {repository}/{Path(body['chart']).name} read from {source}")
    return lines


def _module_dir(source):
    out = subprocess.run(["go", "mod", "download", "-json", source], capture_output=True, text=True, cwd="/")
    try:
        return Path(json.loads(out.stdout)["Dir"])
    except (json.JSONDecodeError, KeyError):
        raise ValueError(f"go mod download {source} failed: {(out.stdout + out.stderr).strip()[-500:]}") from None


def offline_plan(stack: Path, tf, env):
    """`terraform plan -refresh=false` of a scratch copy (local backend), fully offline: a placeholder
    access token satisfies the google provider's credential lookup; nothing is refreshed or applied;
    the pinned OCI charts come from their Go modules (module_charts). (None, reason) when a data source
    needs the cloud API."""
    doc = json.loads((stack / "cdk.tf.json").read_text())
    data = doc.get("data", {})
    online = [f"data.{kind} ({why})" for kind, why in ONLINE_DATA_SOURCES.items() if kind in data]
    if online:
        return None, "SKIPPED: " + "; ".join(online)
    try:
        charts = module_charts(doc)
    except ValueError as exc:
        return False, str(exc)
    for line in charts:
        print(f"    offline plan: {line}")
    (stack / "cdk.tf.json").write_text(json.dumps(doc, indent=2))
    plan_env = dict(env, GOOGLE_OAUTH_ACCESS_TOKEN="offline-plan-placeholder")
    # Input variables without a default (secrets such as a PagerDuty key) get a placeholder value.
    for name, variable in doc.get("variable", {}).items():
        if "default" not in variable:
            plan_env.setdefault(f"TF_VAR_{name}", "offline-plan-placeholder")
    plan = run([*tf, "plan", "-refresh=false", "-lock=false", "-input=false", "-no-color"], stack, plan_env)
    summary = [line for line in plan.stdout.splitlines() if line.startswith(("Plan:", "No changes"))]
    warned = "Warning:" in plan.stdout + plan.stderr
    ok = plan.returncode == 0 and not warned
    return ok, (summary[0] if summary and ok else (plan.stdout + plan.stderr).strip()[-3000:])


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
    builds = mirror_builds()
    scratch_root = Path(tempfile.mkdtemp(prefix="gke-accel-validate-"))
    records = []
    try:
        failed = check_all(stacks, scratch_root, builds, tf, env, records)
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)
    summary = summarize(records, builds)
    print(summary["line"])
    if os.environ.get("GKE_ACCEL_VALIDATE_SUMMARY"):
        Path(os.environ["GKE_ACCEL_VALIDATE_SUMMARY"]).write_text(json.dumps(summary, indent=1))
    return 1 if failed else 0


def summarize(records, builds):
    """One line (and its facts) for every stack validated: how many are valid, with which builds, and
    how many helm releases were validated and planned with them."""
    valid = sum(1 for r in records if r["valid"])
    helm = sum(r["helm_releases"] for r in records if r["valid"])
    providers = sorted({p for r in records for p in r["providers"]})
    used = [f"{p} {builds[p][0]}" if p in builds else f"{p} not built" for p in providers]
    line = f"terraform: {valid}/{len(records)} stacks valid ({', '.join(used)}); {helm} helm releases validated"
    line += " and planned"
    return {"line": line, "stacks": len(records), "valid": valid, "helm_releases": helm,
            "providers": {p: builds[p][0] if p in builds else None for p in providers}, "records": records}


def check_all(stacks, scratch_root: Path, builds, tf, env, records=None) -> bool:
    """Validate and plan every stack (one record per stack appended to ``records``); True when
    anything failed."""
    failed = False
    for original in stacks:
        stack = scratch_root / original.name
        versions = scratch_copy(original, stack, builds)
        providers = sorted(json.loads((stack / "cdk.tf.json").read_text()).get("terraform", {})
                           .get("required_providers", {}))  # fmt: skip
        doc = json.loads((stack / "cdk.tf.json").read_text())
        releases = len(doc.get("resource", {}).get("helm_release", {}))
        res, secs = validate(stack, tf, env)
        errs, warns = res.get("error_count", 0), res.get("warning_count", 0)
        status = "INIT-FAILED" if res.get("init_failed") else ("valid" if res.get("valid") else "INVALID")
        print(f"{stack.name:<20} {status:<11} errors={errs} warnings={warns} {secs:6.1f}s "
              f"({releases} helm releases)")
        if res.get("output"):
            print("    " + res["output"].replace("\n", "\n    "))
        for line in versions:
            print(f"    {line}")
        for d in res.get("diagnostics", []):
            print(fmt_diag(d))
        bad = bool(errs or warns or not res.get("valid"))
        if res.get("valid") and not errs:
            ok, text = offline_plan(stack, tf, env)
            shown = text if ok is not False else "FAILED:\n      " + text.replace("\n", "\n      ")
            print(f"    offline plan (-refresh=false): {shown}")
            bad |= ok is False
        failed |= bad
        if records is not None:
            records.append({"stack": original.name, "valid": not bad, "providers": providers,
                            "helm_releases": releases})
    return failed


if __name__ == "__main__":
    sys.exit(main())
