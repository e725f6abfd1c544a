"""Run checkov (``--framework terraform_json``) over ``cdktf.out/stacks`` and sort its failures into
real findings and accepted ones (skips recorded by ``gke_accel.cdk.policy.skip_check``)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SKIP_KEY = "checkov_skip"


@dataclass(frozen=True)
class Finding:
    stack: str
    check_id: str
    resource: str  # "<type>.<logical id>"
    title: str
    reason: str = ""  # why it is accepted, for skipped findings


@dataclass
class PolicyReport:
    passed: int = 0
    failed: list[Finding] = field(default_factory=list)
    skipped: list[Finding] = field(default_factory=list)

    def summary(self, title: str = "policy scan (checkov)") -> str:
        """One line: the counts (skipped = accepted findings, each recorded with its reason)."""
        return f"{title}: {self.passed} passed, {len(self.failed)} failed, {len(self.skipped)} skipped with a reason"

    def failed_lines(self) -> list[str]:
        return [f"  FAILED  {f.stack}: {f.check_id} {f.resource}: {f.title}" for f in self.failed]

    def skipped_lines(self) -> list[str]:
        return [f"  skipped {f.stack}: {f.check_id} {f.resource}: {f.reason}" for f in self.skipped]

    def render(self, title: str = "policy scan (checkov)") -> str:
        """Everything: the counts, each failed check, each skip with its reason."""
        return "\n".join([self.summary(title), *self.failed_lines(), *self.skipped_lines()])


def _resource_types(stacks_dir: Path) -> dict[tuple[str, str], str]:
    """(stack, logical id) -> resource type, to name findings as ``<type>.<logical id>``."""
    types: dict[tuple[str, str], str] = {}
    for path in sorted(stacks_dir.glob("*/cdk.tf.json")):
        for rtype, resources in json.loads(path.read_text()).get("resource", {}).items():
            for logical_id in resources:
                types[(path.parent.name, logical_id)] = rtype
    return types


def collect_skips(stacks_dir: Path) -> dict[tuple[str, str, str], str]:
    """(stack, logical id, check id) -> reason, from every resource's ``//`` block."""
    skips: dict[tuple[str, str, str], str] = {}
    for path in sorted(stacks_dir.glob("*/cdk.tf.json")):
        doc = json.loads(path.read_text())
        for resources in doc.get("resource", {}).values():
            for logical_id, body in resources.items():
                for check_id, reason in body.get("//", {}).get(SKIP_KEY, {}).items():
                    skips[(path.parent.name, logical_id, check_id)] = reason
    return skips


class CheckovMissing(RuntimeError):
    """checkov is not installed in the Python environment that runs gke-accel."""


CHECKOV_ENV = {"BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"}
# A runner takes checkov's arguments and returns (exit code, stdout, stderr).
Runner = Callable[[list[str]], tuple[int, str, str]]


def checkov_args(stacks_dir: Path) -> list[str]:
    return [
        "-d",
        str(stacks_dir),
        "--framework",
        "terraform_json",
        "--quiet",
        "--compact",
        "--skip-download",
        "-o",
        "json",
    ]


def run_subprocess(args: list[str]) -> tuple[int, str, str]:
    """checkov in a fresh interpreter (pays its ~3-4 s import every time)."""
    env = {**os.environ, **CHECKOV_ENV}
    proc = subprocess.run(
        [sys.executable, "-m", "checkov.main", *args], capture_output=True, text=True, env=env, check=False
    )
    return proc.returncode, proc.stdout, proc.stderr


def _run_checkov(stacks_dir: Path, runner: Runner | None = None) -> list[dict[str, Any]]:
    if runner is None and importlib.util.find_spec("checkov") is None:
        raise CheckovMissing(
            f"checkov is not installed for {sys.executable}; install the scan extra: "
            "pip install 'gke-accel[scan]' (the pinned checkov; from a checkout: pip install -e '.[scan]', "
            "as make synth does)"
        )
    code, stdout, stderr = (runner or run_subprocess)(checkov_args(stacks_dir))
    if code not in (0, 1) or not stdout.strip():
        raise RuntimeError(f"checkov failed (exit {code}): {stderr.strip()[-2000:]}")
    data = json.loads(stdout)
    reports: list[dict[str, Any]] = data if isinstance(data, list) else [data]
    return reports


def scan_stacks(stacks_dir: Path, runner: Runner | None = None) -> PolicyReport:
    """checkov over every stack in ``stacks_dir``; ``runner`` runs checkov (default: a subprocess)."""
    skips = collect_skips(stacks_dir)
    types = _resource_types(stacks_dir)
    report = PolicyReport()
    for result in _run_checkov(stacks_dir, runner):
        if "results" not in result:  # checkov prints a bare summary when nothing was scanned
            continue
        report.passed += int(result.get("summary", {}).get("passed", 0))
        for failed in result["results"].get("failed_checks", []):
            stack = Path(failed["file_path"]).parent.name
            logical_id = failed["resource"].split(".")[-1]
            rtype = types.get((stack, logical_id))
            address = f"{rtype}.{logical_id}" if rtype else failed["resource"]
            finding = Finding(stack, failed["check_id"], address, failed.get("check_name", ""))
            reason = skips.get((stack, logical_id, failed["check_id"]))
            if reason:
                report.skipped.append(Finding(finding.stack, finding.check_id, finding.resource, finding.title, reason))
            else:
                report.failed.append(finding)
    return report
