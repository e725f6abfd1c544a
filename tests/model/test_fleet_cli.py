"""``gke-accel fleet show`` and ``fleet where`` (docs/fleet.md). ``where`` reads the manager's Workload; the
Workloads here are written by hand in Kueue v1beta2's shape (sigs.k8s.io/kueue@v0.19.2
apis/kueue/v1beta2/workload_types.go: status.clusterName, status.nominatedClusterNames,
status.admissionChecks[].{name,state,message}, the QuotaReserved condition); tests/e2e/test_fleet.py runs
``fleet where`` against the real Kueue."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from gke_accel.cli.fleet_view import where_text

ROOT = Path(__file__).resolve().parents[2]
ORDER = ["fleet-central", "fleet-europe"]
EXAMPLE = str(ROOT / "examples" / "fleet")


def fleet_show(env: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "gke_accel.cli.main", "fleet", "show", env, "--config-dir", EXAMPLE]
    return subprocess.run(args, capture_output=True, text=True)


def workload(status: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "job-train-1a2b3", "ownerReferences": [{"kind": "Job", "name": "train"}]},
            "status": status}  # fmt: skip


RESERVED = {"type": "QuotaReserved", "status": "True"}


def test_a_job_on_the_second_worker_says_the_first_did_not_admit_it() -> None:
    text = where_text(workload({"clusterName": "fleet-europe", "conditions": [RESERVED],
                                "admissionChecks": [{"name": "fleet", "state": "Ready",
                                                     "message": 'The workload got reservation on "fleet-europe"'}]}),
                      "train", ORDER)  # fmt: skip
    assert text.splitlines()[0] == "train: runs on fleet-europe"
    assert "worker 2 of 2 in dispatch order; the workers before it (fleet-central) did not admit it first" in text
    assert "[fleet: Ready]" in text


def test_a_waiting_job_names_the_workers_it_was_offered_and_the_next() -> None:
    text = where_text(workload({"nominatedClusterNames": ["fleet-central"], "conditions": [RESERVED]}), "train", ORDER)
    assert text.splitlines() == [
        "train: offered to fleet-central; no worker has admitted it",
        "  next: fleet-europe joins when the current round ends without an admission",
    ]
    assert "waiting in the manager's queue" in where_text(workload({}), "train", ORDER)
    assert "no Workload on the manager" in where_text(None, "train", ORDER)


def test_fleet_show_lists_the_workers_in_order_with_their_offers() -> None:
    out = fleet_show("fleet-hub")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[2].startswith("  1. fleet-central: cluster ml-fleet-central in us-central1")
    assert any(line.startswith("  2. fleet-europe: cluster ml-fleet-europe in europe-west4") for line in lines)
    assert "       nlp: up to 2 l4" in lines  # fleet-europe: nlp's nominal 2 L4
    assert "  team nlp: at most 3 l4 in flight across the fleet (manager quota)" in lines


def test_fleet_show_of_a_plain_environment_and_a_missing_one() -> None:
    plain = fleet_show("fleet-europe")
    assert plain.returncode == 0 and "is not a fleet manager" in plain.stdout
    missing = fleet_show("nope")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_fleet_up_of_an_environment_that_is_no_manager_is_one_line_before_anything_starts(tmp_path: Path) -> None:
    args = [sys.executable, "-m", "gke_accel.cli.main", "fleet", "up", "fleet-europe", "--config-dir", EXAMPLE,
            "--state", str(tmp_path / "state")]  # fmt: skip
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        "error: fleet fleet-europe did not start (everything started is stopped): "
        "fleet-europe is not a fleet manager (its file has no fleet: block)"
    ]
    assert not (tmp_path / "state").exists()
