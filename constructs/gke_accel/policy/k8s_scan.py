"""Run checkov's ``kubernetes`` framework over the manifests ``gke-accel manifests`` writes.

Accepted findings are recorded on the object itself, as checkov's ``checkov.io/skip<N>:
<check>=<reason>`` annotations (written by ``model.k8s_manifests``); checkov reports them as
skipped with that reason, and anything else as failed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from gke_accel.policy.scan import Finding, PolicyReport


def _run(manifests_dir: Path) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "checkov.main", "-d", str(manifests_dir), "--framework", "kubernetes"]
    cmd += ["--compact", "--skip-download", "-o", "json"]  # not --quiet: it drops the skipped checks
    env = {**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        raise RuntimeError(f"checkov failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    data = json.loads(proc.stdout)
    return data if isinstance(data, list) else [data]


def _finding(check: dict[str, Any]) -> Finding:
    env = Path(check.get("file_abs_path") or check["file_path"]).parent.name or "-"
    reason = (check.get("check_result") or {}).get("suppress_comment") or check.get("suppress_comment") or ""
    return Finding(env, check["check_id"], check["resource"], check.get("check_name", ""), reason)


def scan_manifests(manifests_dir: Path) -> PolicyReport:
    """checkov over ``<dir>/<env>/*.yaml``: passed count, failed findings, annotated skips."""
    report = PolicyReport()
    for result in _run(manifests_dir):
        if "results" not in result:
            continue
        report.passed += int(result.get("summary", {}).get("passed", 0))
        report.failed += [_finding(c) for c in result["results"].get("failed_checks", [])]
        report.skipped += [_finding(c) for c in result["results"].get("skipped_checks", [])]
    return report
