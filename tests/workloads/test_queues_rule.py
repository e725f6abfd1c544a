"""The queue-label rule and template field, on the model's queue contract (model/queues)."""

from __future__ import annotations

import pytest
import yaml
from workload_cases import tpu_job, workload_env_config

from gke_accel.model import load_environment_text
from gke_accel.model.queues import names
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.verify.check import expected_objects
from helpers import to_yaml


@pytest.fixture(scope="module")
def kueue_env():  # type: ignore[no-untyped-def]
    data = workload_env_config()
    data["queues"] = {}
    # v5e 16 would all go to the on-demand 2x4 flavor (filled first, 16 chips), leaving the Spot 2x2 flavor
    # that tpu_job selects no nominal quota anywhere in the cohort: Kueue would never admit it (lint says so)
    data["teams"][0]["accelerators"]["v5e"] = 32
    return load_environment_text(to_yaml(data), expected_name="test")


def test_queue_label_accepted_and_rejected(kueue_env) -> None:  # type: ignore[no-untyped-def]
    ns_queue = names.team_local_queue(kueue_env.spec, "nlp")
    assert ns_queue is not None
    good = tpu_job()
    good["metadata"]["labels"] = {names.QUEUE_LABEL: ns_queue[1]}
    assert lint_texts(kueue_env, [("a.yaml", yaml.safe_dump(good))]).ok
    # without the label, or naming `default`: Kueue's LocalQueue defaulting puts it in the team's
    # `default` LocalQueue, the same ClusterQueue (proven on the real controller: tests/e2e/test_default_queue.py)
    for labels in ({}, {names.QUEUE_LABEL: "default"}):
        also_good = tpu_job()
        also_good["metadata"]["labels"] = labels
        assert lint_texts(kueue_env, [("a.yaml", yaml.safe_dump(also_good))]).ok, labels
    bad = tpu_job()
    bad["metadata"]["labels"] = {names.QUEUE_LABEL: "other"}
    report = lint_texts(kueue_env, [("a.yaml", yaml.safe_dump(bad))])
    assert not report.ok
    [finding] = [f for f in report.verdicts[0].findings if f.rule == "queue-label"]
    assert finding.message.startswith("is 'other', not a LocalQueue of team nlp")
    assert "the team's queues are 'team' and 'default'" in finding.message


def test_generated_workload_carries_the_queue_label(kueue_env) -> None:  # type: ignore[no-untyped-def]
    req = WorkloadRequest(name="t", team="nlp", kind="job", accelerator="v5e", image="x", chips=4)
    [job] = new_workload(kueue_env, req)
    assert job["metadata"]["labels"][names.QUEUE_LABEL] == names.team_local_queue(kueue_env.spec, "nlp")[1]
    assert lint_texts(kueue_env, [("a.yaml", yaml.safe_dump(job))]).ok


def test_verify_expects_each_team_local_queue(kueue_env) -> None:  # type: ignore[no-untyped-def]
    """Both LocalQueues of each team (the one workloads name and ``default``), as Kueue v0.17 serves them."""
    queues = [o for o in expected_objects(kueue_env) if o["kind"] == "LocalQueue"]
    assert sorted((q["apiVersion"], q["metadata"]["namespace"], q["metadata"]["name"]) for q in queues) == [
        ("kueue.x-k8s.io/v1beta2", ns, name) for ns in ("nlp", "vision") for name in ("default", "team")
    ]
