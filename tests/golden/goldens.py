"""Golden snapshots of what gke-accel ships: for every environment in ``config/``, the synthesized
stack (``cdktf.out/stacks/<env>/cdk.tf.json``), its resource addresses (one per line, the
construct-address contract: a changed address is a destroy and a create) and what
``gke-accel manifests --env <env>`` prints.

The snapshots are the regression net for refactors: a change to HEAD that changes what is deployed
shows up as a diff in ``tests/golden/test_golden.py``. An intended change is recorded with
``make golden`` (this file run as a script: one synth of every environment, then
``git diff --stat`` of the snapshots), and the diff is reviewed like code.

Normalised: only the framework's version in the stack's ``//`` metadata (cdktn and cdktf write
their own; nothing deployed depends on it). The Helm charts' asset paths are content hashes, so
they stay: a changed chart changes its path.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
CONFIG_DIR = ROOT / "config"
FRAMEWORK_VERSION = "(the framework's version)"
FILES = ("cdk.tf.json", "addresses.txt", "manifests.yaml")


def environments() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def normalised_stack(text: str) -> str:
    stack: dict[str, Any] = json.loads(text)
    meta = stack.get("//", {}).get("metadata", {})
    if "version" in meta:
        meta["version"] = FRAMEWORK_VERSION
    return json.dumps(stack, indent=2) + "\n"


def addresses(stack_text: str) -> str:
    """``<type>.<name>`` of every resource and ``data.<type>.<name>`` of every data source, sorted."""
    stack: dict[str, Any] = json.loads(stack_text)
    rows = [f"{t}.{n}" for t, group in stack.get("resource", {}).items() for n in group]
    rows += [f"data.{t}.{n}" for t, group in stack.get("data", {}).items() for n in group]
    return "".join(f"{row}\n" for row in sorted(rows))


def manifests_text(plan: Any) -> str:
    """What ``gke-accel manifests --env <env>`` prints for ``plan``."""
    from gke_accel.cli.manifests_view import environment_manifests

    return f"# environment: {plan.name}\n" + yaml.safe_dump_all(environment_manifests(plan), sort_keys=False)


def snapshot(stacks: Path, plans: list[Any]) -> dict[str, str]:
    """``<env>/<file>`` -> its text, from a synth output's ``stacks/`` folder and the plans."""
    out: dict[str, str] = {}
    for plan in plans:
        stack = normalised_stack((stacks / plan.name / "cdk.tf.json").read_text(encoding="utf-8"))
        out[f"{plan.name}/cdk.tf.json"] = stack
        out[f"{plan.name}/addresses.txt"] = addresses(stack)
        out[f"{plan.name}/manifests.yaml"] = manifests_text(plan)
    return out


def recorded() -> dict[str, str]:
    """The committed snapshots, ``<env>/<file>`` -> text."""
    return {
        str(p.relative_to(GOLDEN)): p.read_text(encoding="utf-8")
        for p in sorted(GOLDEN.glob("*/*"))
        if p.is_file() and p.name in FILES
    }


def current(workdir: Path) -> dict[str, str]:
    """Synthesize every environment once into ``workdir`` and snapshot it."""
    from gke_accel.model.environment.config_files import load_environments
    from gke_accel.stacks.app import synth_environments

    plans = load_environments(CONFIG_DIR)
    synth_environments(plans, str(workdir / "cdktf.out"))
    return snapshot(workdir / "cdktf.out" / "stacks", list(plans))


def write(snapshots: dict[str, str]) -> None:
    """Replace the committed snapshots with ``snapshots`` (environments no longer shipped are removed)."""
    for old in GOLDEN.glob("*/*"):
        if old.is_file() and old.name in FILES and str(old.relative_to(GOLDEN)) not in snapshots:
            old.unlink()
    for name, text in snapshots.items():
        path = GOLDEN / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in GOLDEN.iterdir():
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def main() -> int:
    import tempfile

    from gke_accel.model import ConfigError

    with tempfile.TemporaryDirectory(prefix="gke-accel-golden-") as tmp:
        try:
            snapshots = current(Path(tmp))
        except ConfigError as err:  # a config that does not validate: nothing is recorded
            print(f"golden: nothing recorded, the configs do not validate:\n{err.render()}", file=sys.stderr)
            return 2
    write(snapshots)
    print(f"golden: wrote {len(snapshots)} snapshots of {len(snapshots) // len(FILES)} environment(s) to {GOLDEN}")
    print("golden: changes against the last commit (review them like code, then commit tests/golden):", flush=True)
    git = ["git", "-C", str(ROOT)]
    specs = [str(GOLDEN / "*" / name) for name in FILES]  # the snapshots, not this file or the test
    stat = subprocess.run([*git, "diff", "--stat", "HEAD", "--", *specs], capture_output=True, text=True)
    new = subprocess.run(
        [*git, "ls-files", "--others", "--exclude-standard", "--", *specs], capture_output=True, text=True
    )
    print(stat.stdout, end="")
    for name in new.stdout.split():
        print(f" {name} (new)")
    if not stat.stdout and not new.stdout:
        print(" none: this checkout writes the committed snapshots")
    return stat.returncode


if __name__ == "__main__":
    from gke_accel.cli.progress import exit_now

    sys.stdout.flush()
    exit_now(main())  # the snapshots are written: skip seconds of interpreter teardown with jsii loaded
