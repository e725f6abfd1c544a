"""The ``shared-gpu`` rule (real-engines W4d): on GKE's time-shared and MPS GPU nodes a container may
request at most 1 ``nvidia.com/gpu``; GKE's device plugin refuses more ("invalid request for sharing GPU
(time-sharing), at most 1 nvidia.com/gpu can be requested on GPU nodes", reason UnexpectedAdmissionError:
cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus). The node labels below are the ones
GKE documents for shared nodes (``cloud.google.com/gke-gpu-sharing-strategy``,
``cloud.google.com/gke-max-shared-clients-per-gpu``)."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.lint.engine import LintReport
from helpers import base_config, to_yaml

Doc = dict[str, Any]
L4 = {"cloud.google.com/gke-accelerator": "nvidia-l4"}
TIME_SHARED = {**L4, "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
               "cloud.google.com/gke-max-shared-clients-per-gpu": "4"}  # fmt: skip
MPS = {**L4, "cloud.google.com/gke-gpu-sharing-strategy": "mps", "cloud.google.com/gke-max-shared-clients-per-gpu": "4"}
SPLIT = [{"key": "gke-accel/split-gpu", "operator": "Exists", "effect": "NoSchedule"}]
RESTRICTED = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
              "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}  # fmt: skip


def env(strategy: str) -> EnvironmentPlan:
    data = base_config()
    whole = {"name": "l4", "gpu": "l4", "gpus_per_node": 2, "max_nodes": 2}
    shared = {**whole, "name": "l4-shared", "sharing": {"strategy": strategy, "max_clients": 4}}
    data["gpu_pools"] = [whole, shared]
    return load_environment_text(to_yaml(data), expected_name="test")


def job(selector: dict[str, str], gpus: str, tolerations: list[Doc] | None = None) -> Doc:
    resources = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"nvidia.com/gpu": gpus}}
    container = {"name": "main", "image": "registry.k8s.io/pause:3.10", "securityContext": RESTRICTED,
                 "resources": resources}  # fmt: skip
    pod: Doc = {"restartPolicy": "Never", "nodeSelector": selector, "containers": [container]}
    if tolerations:
        pod["tolerations"] = tolerations
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"backoffLimit": 0, "template": {"spec": pod}}}  # fmt: skip


def lint(strategy: str, doc: Doc) -> LintReport:
    return lint_texts(env(strategy), [("case.yaml", to_yaml(doc))])


def shared_errors(report: LintReport) -> list[str]:
    return [f.render() for v in report.verdicts for f in v.errors if f.rule == "shared-gpu"]


@pytest.mark.parametrize(("strategy", "selector"), [("time-sharing", TIME_SHARED), ("mps", MPS)])
def test_one_gpu_per_container_on_a_shared_pool_is_accepted(strategy: str, selector: dict[str, str]) -> None:
    report = lint(strategy, job(selector, "1", SPLIT))
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("l4-shared",)


@pytest.mark.parametrize(("strategy", "selector"), [("time-sharing", TIME_SHARED), ("mps", MPS)])
def test_two_gpus_in_one_container_on_a_shared_pool_are_refused(strategy: str, selector: dict[str, str]) -> None:
    report = lint(strategy, job(selector, "2", SPLIT))
    assert not report.ok
    [error] = shared_errors(report)
    assert "containers[0].resources.limits.nvidia.com/gpu" in error
    assert "1 nvidia.com/gpu at most" in error


def test_two_gpus_in_one_container_on_whole_gpus_are_accepted() -> None:
    report = lint("time-sharing", job(L4, "2"))
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("l4",)
    assert not shared_errors(report)


def test_selecting_a_shared_unit_by_gke_accel_label_counts_too() -> None:
    """``gke-accel/gpu-unit: ts4`` (workload new's selector) names a time-shared pool like GKE's label."""
    report = lint("time-sharing", job({**L4, "gke-accel/gpu-unit": "ts4"}, "3", SPLIT))
    assert len(shared_errors(report)) == 1, report.render()
