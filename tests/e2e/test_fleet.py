"""The shipped fleet (examples/fleet: fleet-hub managing fleet-central, then fleet-europe) on three local
control planes with the real Kueue 0.19.2 (MultiKueue on the manager) and JobSet 0.12.0, kwok nodes of
each worker's pools (gke_accel/twin/fleet.py). One module fixture starts the three; the tests run in
order on it, each waiting on what the servers report (Workload status, pods), never on a fixed sleep.

- a job submitted to the manager runs on the first worker in the configured order, though the second
  has room too (Kueue's Incremental dispatcher, stepSize 1, MultiKueueConfig order);
- when the first worker is full the next one takes it: the job waits on fleet-central alone for Kueue's
  nomination round (300 s, ``incrementalDispatcherRoundTimeout`` in v0.19.2
  pkg/controller/workloaddispatcher/incrementaldispatcher.go: fixed, not configurable), then
  fleet-europe is nominated and admits it;
- a worker that goes away loses nothing: fleet-central's API server is stopped while it runs a job;
  after ``workerLostTimeout`` (shortened to 20 s here) the manager evicts and requeues that job and
  dispatches it again, and it runs on fleet-europe; every job is accounted for, never running twice.

The worker-loss drill runs during the spill-over's round, so the file pays Kueue's 300 s once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pods import RESTRICTED

from gke_accel.twin.fleet import FleetRun

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "fleet"
HUB, FIRST, SECOND = "fleet-hub", "fleet-central", "fleet-europe"
TEAM = "nlp"
LOST_TIMEOUT = 20
ROUND = 300  # Kueue v0.19.2 incrementalDispatcherRoundTimeout
MEASURED: dict[str, float] = {}


def job(name: str) -> dict[str, Any]:
    """One pod holding one L4 GPU (fleet-central's nlp can hold one, fleet-europe's two), until deleted."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": TEAM, "labels": {"kueue.x-k8s.io/queue-name": "team"}},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                    "containers": [
                        {
                            "name": "train",
                            "image": "registry.k8s.io/pause:3.10",
                            "securityContext": RESTRICTED,
                            "resources": {
                                "requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"},
                                "limits": {"nvidia.com/gpu": "1"},
                            },
                        }
                    ],
                }
            },
        },
    }


@pytest.fixture(scope="module")
def fleet(scheduling_control_plane: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FleetRun]:
    with FleetRun.start(HUB, tmp_path_factory.mktemp("fleet"), config_dir=EXAMPLE,
                        worker_lost_timeout=LOST_TIMEOUT) as run:  # fmt: skip
        MEASURED["up"] = run.start_seconds
        yield run
    print(f"\nfleet measured: {MEASURED}")


def cluster_name(fleet: FleetRun, name: str) -> str | None:
    wl = fleet.workload_of(TEAM, name)
    return None if wl is None else wl.get("status", {}).get("clusterName")


def nominated(fleet: FleetRun, name: str) -> list[str]:
    wl = fleet.workload_of(TEAM, name)
    return [] if wl is None else list(wl.get("status", {}).get("nominatedClusterNames") or [])


def wait_running(fleet: FleetRun, name: str, worker: str, timeout: float) -> float:
    t0 = time.monotonic()
    fleet.manager.cluster.wait_for(
        lambda: cluster_name(fleet, name) == worker and fleet.running_on(TEAM, name) == [worker],
        timeout=timeout,
        interval=1.0,
        what=f"job {name} admitted on {worker} and running there only",
    )
    return time.monotonic() - t0


def where(fleet: FleetRun, name: str) -> str:
    """``gke-accel fleet where`` against the manager, as a user runs it."""
    out = subprocess.run([sys.executable, "-m", "gke_accel.cli.main", "fleet", "where", name, "-n", TEAM,
                          "--manager", HUB, "--config-dir", str(EXAMPLE),
                          "--kubeconfig", str(fleet.manager.cluster.kubeconfig)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout


def test_the_manager_is_connected_to_both_workers_in_order(fleet: FleetRun) -> None:
    config = fleet.manager.cluster.get("multikueueconfigs.kueue.x-k8s.io", "fleet")
    assert config["spec"]["clusters"] == [FIRST, SECOND]
    for worker in (FIRST, SECOND):
        mkc = fleet.manager.cluster.get("multikueueclusters.kueue.x-k8s.io", worker)
        assert [c["status"] for c in mkc["status"]["conditions"] if c["type"] == "Active"] == ["True"]
    # the team's queue exists on every cluster, the same name in the same namespace
    for run in (fleet.manager, *fleet.workers.values()):
        assert "team" in run.local_queues(TEAM)


def verify_rows(fleet: FleetRun, env: str) -> dict[tuple[str, str], dict[str, str]]:
    """``gke-accel verify --env E --json`` against that cluster, as a user runs it: row by (area, subject)."""
    run = fleet.manager if env == HUB else fleet.workers[env]
    out = subprocess.run([sys.executable, "-m", "gke_accel.cli.main", "verify", "--env", env, "--config-dir",
                          str(EXAMPLE), "--kubeconfig", str(run.cluster.kubeconfig), "--json"],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode in (0, 2), out.stderr
    [report] = json.loads(out.stdout)
    return {(r["area"], r["subject"]): r for r in report["checks"]}


def test_verify_reads_every_cluster_of_the_fleet(fleet: FleetRun) -> None:
    hub = verify_rows(fleet, HUB)
    for key in [("AdmissionCheck", "fleet"), ("MultiKueueConfig", "fleet"), ("ClusterQueue", TEAM),
                ("LocalQueue", f"{TEAM}/team")]:  # fmt: skip
        assert hub[key]["status"] == "ok", hub[key]
    # the twin reaches its workers through kubeconfig Secrets, the plan through ClusterProfiles: verify says so
    for worker in (FIRST, SECOND):
        row = hub[("MultiKueueCluster", worker)]
        assert row["status"] == "FAIL" and "clusterSource" in row["detail"], row
    for worker in (FIRST, SECOND):
        rows = verify_rows(fleet, worker)
        assert rows[("ClusterQueue", TEAM)]["status"] == "ok", rows[("ClusterQueue", TEAM)]


def test_a_job_runs_on_the_first_worker_although_the_second_has_room(fleet: FleetRun) -> None:
    fleet.manager.cluster.apply([job("first")])
    MEASURED["dispatch_first_s"] = wait_running(fleet, "first", FIRST, timeout=120)
    assert fleet.running_on(TEAM, "first") == [FIRST]
    # the manager's own Job stays with the manager (managedBy MultiKueue): no pod there
    assert fleet.manager.pods(TEAM) == []
    told = where(fleet, "first")
    assert "first: runs on fleet-central" in told and "worker 1 of 2 in dispatch order" in told


def test_a_full_first_worker_spills_to_the_next_and_a_lost_worker_loses_nothing(fleet: FleetRun) -> None:
    fleet.manager.cluster.apply([job("second")])
    # fleet-central is full (one L4 for nlp, held by "first"): "second" is nominated there alone
    fleet.manager.cluster.wait_for(lambda: nominated(fleet, "second") == [FIRST], timeout=60,
                                   what="second nominated to fleet-central only")  # fmt: skip
    submitted = time.monotonic()
    assert cluster_name(fleet, "second") is None and fleet.running_on(TEAM, "second") == []
    told = where(fleet, "second")
    assert "offered to fleet-central; no worker has admitted it" in told and "next: fleet-europe" in told
    # meanwhile fleet-central goes away while it runs "first"
    fleet.lose(FIRST)
    lost = time.monotonic()
    fleet.manager.cluster.wait_for(lambda: cluster_name(fleet, "first") != FIRST, timeout=LOST_TIMEOUT + 90,
                                   interval=1.0, what="first evicted after workerLostTimeout")  # fmt: skip
    MEASURED["lost_to_requeued_s"] = time.monotonic() - lost
    # the round passes, fleet-europe joins the nomination and admits "second"; then "first" again
    wait_running(fleet, "second", SECOND, timeout=ROUND + 120)
    MEASURED["spill_over_s"] = time.monotonic() - submitted
    wait_running(fleet, "first", SECOND, timeout=ROUND + 120)
    MEASURED["lost_to_running_again_s"] = time.monotonic() - lost
    # every job accounted for: both run, each on exactly one worker, and the manager knows where
    assert {n: cluster_name(fleet, n) for n in ("first", "second")} == {"first": SECOND, "second": SECOND}
    assert fleet.running_on(TEAM, "first") == [SECOND] and fleet.running_on(TEAM, "second") == [SECOND]
    assert "first: runs on fleet-europe" in where(fleet, "first")
