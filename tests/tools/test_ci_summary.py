"""tools/ci/summary.py: the end of .ci/run, from JUnit XML files as pytest writes them (hand-written
here in pytest 8's layout: <testsuites><testsuite name="pytest" errors failures skipped tests>)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_summary", ROOT / "tools" / "ci" / "summary.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ci_summary"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def junit(path: Path, tests: int, failures: int = 0, errors: int = 0, skipped: int = 0) -> None:
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest" errors="{errors}" failures="{failures}" skipped="{skipped}" tests="{tests}" '
        'time="12.3" timestamp="2026-12-01T21:00:00" hostname="ci"></testsuite></testsuites>'
    )


GOOGLE_API = "google-api: 130 values at 21 fields of 6 stacks valid in google.golang.org/api@v0.316.0"


def reports(tmp_path: Path, e2e_skipped: int = 0, e2e_tests: int = 71) -> Path:
    junit(tmp_path / "unit.xml", 1110, skipped=2)
    junit(tmp_path / "e2e.xml", e2e_tests, skipped=e2e_skipped)
    line = "terraform: 3/3 stacks valid (google 8.0.0, helm 3.2.0, kubernetes 3.2.1); "
    line += "9 helm releases validated and planned"
    summary = {"line": line, "stacks": 3, "valid": 3, "helm_releases": 9}
    (tmp_path / "terraform.json").write_text(json.dumps(summary))
    (tmp_path / "times.tsv").write_text("unit\t71\t0\nlint\t40\t0\ne2e\t212\t0\nterraform\t95\t0\n")
    (tmp_path / "google-api.json").write_text(json.dumps({"line": GOOGLE_API}))
    return tmp_path


def test_a_green_run_prints_one_line_per_tier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load_tool().main([str(reports(tmp_path))]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "--- CI summary ---",
        "unit: 1108 passed, 0 failed, 2 skipped (71 s)",
        "lint: ok (40 s)",
        "e2e: 71 passed, 0 failed, 0 skipped (212 s)",
        f"  {GOOGLE_API}",
        "terraform: 3/3 stacks valid (google 8.0.0, helm 3.2.0, kubernetes 3.2.1); 9 helm releases validated and "
        "planned (95 s)",
        "total: 418 s",
    ]


def test_an_e2e_skip_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load_tool().main([str(reports(tmp_path, e2e_skipped=3))]) == 1
    out = capsys.readouterr()
    assert "e2e: 68 passed, 0 failed, 3 skipped (212 s)" in out.out
    assert "CI FAILED: e2e: 3 skipped; CI allows no skip in this tier" in out.err


def test_a_tier_that_ran_no_tests_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load_tool().main([str(reports(tmp_path, e2e_tests=0))]) == 1
    assert "CI FAILED: e2e: no tests ran" in capsys.readouterr().err


def test_a_failed_tier_and_a_missing_report_fail_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports(tmp_path)
    summary = {"line": "terraform: 2/3 stacks valid", "stacks": 3, "valid": 2, "helm_releases": 4}
    (tmp_path / "terraform.json").write_text(json.dumps(summary))
    (tmp_path / "times.tsv").write_text("unit\t71\t0\npy313\t9\t0\nlint\t30\t1\nterraform\t95\t2\n")
    assert load_tool().main([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "lint: FAILED (30 s)" in out and "CI FAILED: lint: exit 1" in err
    assert "CI FAILED: py313: wrote no report" in err
    assert "CI FAILED: terraform: exit 2" in err and "CI FAILED: terraform: 2/3 stacks valid" in err


def test_an_e2e_tier_without_the_google_api_report_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (reports(tmp_path) / "google-api.json").unlink()
    assert load_tool().main([str(tmp_path)]) == 1
    assert "CI FAILED: e2e: no google-api.json" in capsys.readouterr().err


def test_a_terraform_summary_that_does_not_count_helm_releases_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """validate_stacks.py once validated stacks without their helm releases (the helm provider was not
    built); a summary in that shape must not pass CI."""
    reports(tmp_path)
    line = "terraform: 3/3 stacks valid (google 8.0.0, kubernetes 3.2.1); 9 helm resources left out"
    (tmp_path / "terraform.json").write_text(json.dumps({"line": line, "stacks": 3, "valid": 3, "helm_left_out": 9}))
    assert load_tool().main([str(tmp_path)]) == 1
    assert "CI FAILED: terraform: the summary does not count the helm releases validated" in capsys.readouterr().err


def test_a_tier_in_two_processes_counts_both_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tools/ci/e2e.sh runs the fleet file beside the rest: e2e.xml plus e2e.beside.xml, summed."""
    junit(reports(tmp_path) / "e2e.beside.xml", 4)
    assert load_tool().main([str(tmp_path)]) == 0
    assert "e2e: 75 passed, 0 failed, 0 skipped (212 s)" in capsys.readouterr().out.splitlines()


def test_a_failure_or_skip_in_the_second_process_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit(reports(tmp_path) / "e2e.beside.xml", 4, failures=1, skipped=1)
    assert load_tool().main([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "e2e: 73 passed, 1 failed, 1 skipped (212 s)" in out
    assert "CI FAILED: e2e: 1 failed, 0 errors" in err
    assert "CI FAILED: e2e: 1 skipped; CI allows no skip in this tier" in err
