"""``explain``'s interpretation on objects recorded from the e2e tier (real Kueue 0.17 controller,
kube-scheduler, kwok: tests/e2e/test_explain_on_server.py with GKE_ACCEL_RECORD_EXPLAIN), one file per state,
in that module's ``explain_environment`` (two 4x4 v5e slices: node pools v5e-s0, v5e-s1).
What each scenario did is known from the scenario, not from the code under test: research, nlp and
serving fill the 32-chip cohort (16 + 8 + 8); nlp's 4-chip n-over then finds nothing free; n-behind
comes a second later; serving's inference job preempts its training job s-train; nlp's n-big asks
100Gi on a 48 GB L4 node; r-serve runs two pods on the v5e pool."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gke_accel.workloads.explain import Observed, explain
from gke_accel.workloads.nodes import pool_nodes

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "explain"
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from test_explain_on_server import explain_environment  # noqa: E402


def recorded(state: str) -> Observed:
    return Observed(**json.loads((FIXTURES / f"{state}.json").read_text()))


@pytest.fixture(scope="module")
def pools() -> Any:
    return pool_nodes(explain_environment()[0])


def test_running_says_where_since_when_and_restarts(pools: Any) -> None:
    e = explain(recorded("running"), pools)
    assert e.state == "running" and e.job == "Deployment/r-serve"
    assert e.details[0].startswith("2 pod(s) running on pool v5e-") and e.details[1].startswith("since 2026-")
    assert e.details[2] == "restarts: 0"


def test_over_quota_gives_usage_against_nominal_and_what_the_cohort_has(pools: Any) -> None:
    e = explain(recorded("over-quota"), pools)
    assert e.state == "over-quota"
    assert "insufficient unused quota for google.com/tpu in flavor v5e-4x4, 4 more needed" in e.details[0]
    assert e.details[1] == (
        "team queue q-nlp uses 8/8 google.com/tpu of flavor v5e-4x4 (no borrowing limit); the cohort has 0 free"
    )


def test_waiting_counts_the_workloads_ahead(pools: Any) -> None:
    e = explain(recorded("waiting"), pools)
    assert e.state == "waiting" and e.headline == "not admitted: waiting behind 1 workload(s)"
    assert e.details[-1].startswith("1 workload(s) ahead of yours in the queue: job-n-over-")


def test_preempted_names_the_preemptor_and_why(pools: Any) -> None:
    e = explain(recorded("preempted"), pools)
    assert e.state == "preempted" and e.job == "Job/s-train"
    assert e.details[0] == (
        "preempted by Job q-serving/serve (priority class inference, 100000 > 10000); reason InClusterQueue"
    )


def test_unschedulable_is_translated_into_the_pools(pools: Any) -> None:
    e = explain(recorded("unschedulable"), pools)
    assert e.state == "unschedulable"
    text = "\n".join(e.details)
    assert "4 Insufficient memory" in text
    assert "pool l4: asks 100Gi memory, a node has 44.7Gi" in text  # 48G allocatable (g2-standard-12, 48 GB)
    assert "pool v5e-s0: " in text and "taint google.com/tpu=present:NoSchedule not tolerated" in text


def test_a_missing_job_and_one_kueue_never_saw(pools: Any) -> None:
    obs = recorded("running")
    assert explain(Observed(obs.kind, "nope", obs.namespace, None), pools).state == "not-found"
    lone = Observed("Job", "lone", "q-nlp", {"metadata": {"name": "lone"}}, workloads=[], pods=[])
    assert explain(lone, pools).state == "not-queued"


def test_a_finished_workload_is_finished(pools: Any) -> None:
    obs = recorded("waiting")
    done = copy.deepcopy(obs)
    for w in done.workloads:
        w.setdefault("status", {}).setdefault("conditions", []).append(
            {"type": "Finished", "status": "True", "reason": "Succeeded", "message": "Job finished successfully"}
        )
    assert explain(done, pools).state == "finished"


def test_the_command_without_a_cluster_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gke_accel.cli.main import main

    args = ["explain", "train", "--env", "dev", "--config-dir", str(ROOT / "config")]
    assert main([*args, "--kubeconfig", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read the cluster: ") and len(err.splitlines()) == 1
    assert main([*args, "--team", "nobody"]) == 1
    assert "--team 'nobody' is not a team of dev: nlp, vision" in capsys.readouterr().err
