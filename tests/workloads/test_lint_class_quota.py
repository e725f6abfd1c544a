"""lint's quota rule reads the ResourceQuota that counts the pods' priority class: with queues, a team that
may use inference and another class has ``compute`` (every class but inference) and ``compute-inference``
(model/teams/manifests.py, docs/queues.md "ResourceQuota and Kueue"). config/staging.yaml: serving (inference,
training) may hold 5 L4s (its 4 on the ladder's rungs + nlp's 1 it may borrow; research has none to lend), written
by hand; both quotas hold 5. Kueue's own ceiling differs by shape: a Deployment's pods are Kueue workloads of their
own and spread over the rungs (5 in all), a Job is one pod set on one rung (at most 2: the reservation's 1 + nlp's
1, or Spot's 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import load_environment
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts

STAGING = load_environment(str(Path(__file__).resolve().parents[2] / "config" / "staging.yaml"))
IMAGE = "registry.k8s.io/pause:3.10"


def _quota_messages(obj: dict[str, Any]) -> list[str]:
    [wl] = lint_texts(STAGING, [("w.yaml", yaml.safe_dump(obj))]).to_dict()["workloads"]
    return [f["message"] for f in wl["findings"] if f["rule"] == "quota" and f["severity"] == "error"]


def _deployment(replicas: int) -> dict[str, Any]:
    request = WorkloadRequest(name="serve", team="serving", kind="deployment", accelerator="l4", image=IMAGE,
                              priority="inference", replicas=1, checkpoints=False, cpu="1", memory="1Gi")  # fmt: skip
    [deployment] = [o for o in new_workload(STAGING, request) if o["kind"] == "Deployment"]
    deployment["spec"]["replicas"] = replicas
    return deployment


def test_inference_pods_are_judged_against_compute_inference() -> None:
    assert _quota_messages(_deployment(5)) == []
    [message, *_] = _quota_messages(_deployment(6))
    assert "requests 6 nvidia.com/gpu at once" in message and "requests.nvidia.com/gpu=5" in message
    assert "(ResourceQuota compute-inference)" in message, message


def _job(pods: int) -> dict[str, Any]:
    request = WorkloadRequest(name="train", team="serving", kind="job", accelerator="l4", image=IMAGE,
                              priority="training", parallelism=1, completions=1, checkpoints=False, cpu="1",
                              memory="1Gi")  # fmt: skip
    [job] = new_workload(STAGING, request)
    job["spec"]["parallelism"] = job["spec"]["completions"] = pods
    return job


def test_training_pods_are_judged_against_compute() -> None:
    assert _quota_messages(_job(2)) == []
    [message, *_] = _quota_messages(_job(6))
    assert "requests 6 nvidia.com/gpu at once" in message and "(ResourceQuota compute)" in message, message


def test_a_jobs_pods_take_one_rung() -> None:
    # 3 pods of one Job: within the ResourceQuota's 5, but no rung admits 3 for serving
    [message] = _quota_messages(_job(3))
    assert "team serving's ClusterQueue" in message and "admits at most 2 there" in message, message
