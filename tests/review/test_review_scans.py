"""checkov through the pre-imported zygote gives what a fresh checkov gives, and falls back to one
when the zygote is gone. checkov only: no jsii."""

from __future__ import annotations

import json
from pathlib import Path

from gke_accel.policy.scan import scan_stacks
from gke_accel.review.build import SideResult
from gke_accel.review.scans import CheckovZygote, changed_stacks

BUCKET = {"name": "b", "location": "US", "force_destroy": True}  # no uniform access, no versioning


def stacks(tmp_path: Path) -> Path:
    folder = tmp_path / "stacks"
    (folder / "test").mkdir(parents=True)
    doc = {"resource": {"google_storage_bucket": {"b": BUCKET}}}
    (folder / "test" / "cdk.tf.json").write_text(json.dumps(doc))
    return folder


def findings(report: object) -> set[tuple[str, str]]:
    return {(f.check_id, f.resource) for f in report.failed}  # type: ignore[attr-defined]


def test_zygote_scan_equals_a_fresh_checkov(tmp_path: Path) -> None:
    folder = stacks(tmp_path)
    zygote = CheckovZygote()
    try:
        via_zygote = scan_stacks(folder, zygote.run)
    finally:
        zygote.close()
    fresh = scan_stacks(folder)
    assert findings(via_zygote) == findings(fresh)
    assert ("CKV_GCP_29", "google_storage_bucket.b") in findings(fresh)  # uniform bucket-level access


def test_a_dead_zygote_falls_back_to_a_fresh_checkov(tmp_path: Path) -> None:
    zygote = CheckovZygote()
    zygote.close()  # stdin closed, process gone
    try:
        report = scan_stacks(stacks(tmp_path), zygote.run)
    finally:
        zygote.close()
    assert ("CKV_GCP_29", "google_storage_bucket.b") in findings(report)


def test_only_stacks_that_differ_are_scanned(tmp_path: Path) -> None:
    same = {"resource": {"x": {"a": {"v": 1}}}}
    base = SideResult("base", tmp_path, {"dev": same, "prod": same, "old": same})
    head = SideResult("head", tmp_path, {"dev": same, "prod": {"resource": {"x": {"a": {"v": 2}}}}, "new": same})
    assert changed_stacks(base, head) == ["new", "old", "prod"]


def test_stop_ends_a_running_scan_and_no_fresh_checkov_follows(tmp_path: Path) -> None:
    import threading

    import pytest

    zygote = CheckovZygote()
    errors: list[BaseException] = []

    def scan() -> None:
        try:
            scan_stacks(stacks(tmp_path), zygote.run)
        except RuntimeError as exc:
            errors.append(exc)

    thread = threading.Thread(target=scan)
    thread.start()
    zygote.stop()
    thread.join(timeout=30)
    assert not thread.is_alive()
    with pytest.raises(RuntimeError, match="stopped"):
        zygote.run(["--version"])
    assert all("stopped" in str(e) for e in errors)
