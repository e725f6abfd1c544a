"""checkov over every shipped environment stack: zero failed checks; each skip carries a reason."""

from __future__ import annotations

from pathlib import Path

from gke_accel.policy import collect_skips, scan_stacks


def test_checkov_finds_no_failed_checks_in_any_environment(shipped_stacks: Path) -> None:
    report = scan_stacks(shipped_stacks)
    assert report.passed > 100
    assert report.failed == [], report.render()
    assert {f.stack for f in report.skipped} <= {"dev", "staging", "prod"}


def test_every_skip_is_recorded_on_its_resource_with_a_one_line_reason(shipped_stacks: Path) -> None:
    skips = collect_skips(shipped_stacks)
    assert skips, "the shipped stacks record their accepted findings"
    for (_stack, _resource, check_id), reason in skips.items():
        assert check_id.startswith(("CKV_", "CKV2_"))
        assert reason.strip() and "\n" not in reason


def test_an_unskipped_finding_fails_the_scan(tmp_path: Path, shipped_stacks: Path) -> None:
    import json

    doc = json.loads((shipped_stacks / "dev" / "cdk.tf.json").read_text())
    for body in doc["resource"]["google_container_cluster"].values():
        body["//"].pop("checkov_skip")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "cdk.tf.json").write_text(json.dumps(doc))
    report = scan_stacks(tmp_path)
    assert {f.check_id for f in report.failed} == {"CKV_GCP_12", "CKV_GCP_69"}
