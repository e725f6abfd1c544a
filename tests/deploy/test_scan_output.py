"""`gke-accel scan` output: failed checks first, accepted (skipped) findings in a file unless --verbose,
and the verdict is the last line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_accel.cli.main import _print_scan
from gke_accel.policy import Finding, PolicyReport

SKIP = Finding(
    "dev", "CKV_K8S_31", "DaemonSet.kube-system.nvidia-driver-installer", "seccomp", "installs a kernel module"
)
FAIL = Finding("prod", "CKV_GCP_12", "google_container_cluster.gke", "network policy on", "")


def reports(failed: bool) -> list[tuple[str, PolicyReport]]:
    terraform = PolicyReport(302, [FAIL] if failed else [], [SKIP, SKIP])
    return [("terraform", terraform), ("kubernetes manifests", PolicyReport(160, [], [SKIP]))]


def test_the_verdict_is_last_and_skips_go_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skips = tmp_path / "policy-skips.txt"
    assert _print_scan(reports(failed=False), skips, verbose=False) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "policy scan (checkov): terraform 302 passed, 0 failed; kubernetes manifests 160 passed, 0 failed"
    assert "3 accepted finding(s) skipped" in out[0] and str(skips) in " ".join(out) and "--verbose" in " ".join(out)
    assert not [line for line in out if "CKV_" in line]
    assert skips.read_text().count("skipped dev: CKV_K8S_31") == 3
    assert "installs a kernel module" in skips.read_text()


def test_a_failure_is_printed_before_the_verdict_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _print_scan(reports(failed=True), tmp_path / "s.txt", verbose=False) == 1
    out = capsys.readouterr().out
    assert out.startswith("  FAILED  prod: CKV_GCP_12")
    assert "skipped dev" not in out
    assert "terraform 302 passed, 1 failed" in out.replace("\n", " ")


def test_verbose_prints_each_skip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _print_scan(reports(failed=False), tmp_path / "s.txt", verbose=True) == 0
    out = capsys.readouterr().out
    assert out.count("skipped dev: CKV_K8S_31") == 3
    assert out.rstrip().splitlines()[-1].startswith("policy scan (checkov): terraform 302 passed, 0 failed")
