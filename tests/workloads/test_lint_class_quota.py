"""lint's quota rule reads the ResourceQuota that counts the pods' priority class: with queues, a team that
may use inference and another class has ``compute`` (every class but inference) and ``compute-inference``
(model/teams/manifests.py, docs/queues.md "ResourceQuota and Kueue"). config/staging.yaml: serving (inference,
training) may hold 4 L4s (nominal 3 + nlp's 1), written by hand; both quotas hold 4."""

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
                              priority="inference", replicas=4, checkpoints=False, cpu="1", memory="1Gi")  # fmt: skip
    [deployment] = [o for o in new_workload(STAGING, request) if o["kind"] == "Deployment"]
    deployment["spec"]["replicas"] = replicas
    return deployment


def test_inference_pods_are_judged_against_compute_inference() -> None:
    assert _quota_messages(_deployment(4)) == []
    [message, *_] = _quota_messages(_deployment(5))
    assert "requests 5 nvidia.com/gpu at once" in message and "requests.nvidia.com/gpu=4" in message
    assert "(ResourceQuota compute-inference)" in message, message


def test_training_pods_are_judged_against_compute() -> None:
    request = WorkloadRequest(name="train", team="serving", kind="job", accelerator="l4", image=IMAGE,
                              priority="training", parallelism=4, completions=4, checkpoints=False, cpu="1",
                              memory="1Gi")  # fmt: skip
    [job] = new_workload(STAGING, request)
    assert _quota_messages(job) == []
    job["spec"]["parallelism"] = job["spec"]["completions"] = 5
    [message, *_] = _quota_messages(job)
    assert "requests 5 nvidia.com/gpu at once" in message and "(ResourceQuota compute)" in message, message
