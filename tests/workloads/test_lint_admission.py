"""Lint models what Kueue and the API server do before the scheduler (W4): the flavor's tolerations and
labels Kueue adds (and the flavors it never admits a pod on), native sidecars' requests, and the
namespace LimitRange's default limits. Each rule with an accepted and a rejected case; the verdicts are
checked against the real engines in tests/e2e/test_lint_agrees.py."""

from __future__ import annotations

import copy
from typing import Any

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.lint.engine import LintReport
from helpers import base_config, to_yaml

Doc = dict[str, Any]
A100 = {"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"}
MIG = {**A100, "cloud.google.com/gke-gpu-partition-size": "1g.10gb"}
RESTRICTED = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
              "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}  # fmt: skip
IMAGE = "registry.k8s.io/pause:3.10"
SPLIT = [{"key": "gke-accel/split-gpu", "operator": "Equal", "value": "1g.10gb", "effect": "NoSchedule"}]


def split_env() -> EnvironmentPlan:
    data = base_config()
    whole = {"name": "a100", "gpu": "a100-80gb", "gpus_per_node": 1, "max_nodes": 2, "zones": ["us-central1-a"]}
    data["gpu_pools"] = [whole, {**whole, "name": "a100-mig", "partition_size": "1g.10gb", "max_nodes": 1}]
    data["teams"] = [{"name": "ml", "google_group": "ml@acme.example.com",
                      "accelerators": {"a100-80gb": 2, "a100-80gb-mig-1g-10gb": 7}}]  # fmt: skip
    data["queues"] = {}
    return load_environment_text(to_yaml(data), expected_name="test")


def job(selector: dict[str, str], gpus: str = "1", tolerations: list[Doc] | None = None, **extra: Any) -> Doc:
    resources = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"nvidia.com/gpu": gpus}}
    container = {"name": "main", "image": IMAGE, "securityContext": RESTRICTED, "resources": resources}
    pod: Doc = {"restartPolicy": "Never", "nodeSelector": selector, "containers": [container], **extra}
    if tolerations:
        pod["tolerations"] = tolerations
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"},
            "spec": {"backoffLimit": 0, "template": {"spec": pod}}}  # fmt: skip


def lint(doc: Doc) -> LintReport:
    return lint_texts(split_env(), [("case.yaml", to_yaml(doc))])


def rules(report: LintReport) -> set[str]:
    return {f.rule for v in report.verdicts for f in v.errors}


def test_a_whole_gpu_job_goes_to_the_whole_gpu_flavor() -> None:
    report = lint(job(A100))
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("a100",)


def test_a_mig_job_that_selects_its_unit_goes_to_the_mig_flavor() -> None:
    report = lint(job({**MIG, "gke-accel/gpu-unit": "mig-1g-10gb"}, tolerations=SPLIT))
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("a100-mig",)


def test_a_mig_job_without_its_unit_may_be_admitted_on_whole_gpus_where_it_fits_no_node() -> None:
    """Kueue v0.19 ignores the partition-size key on the whole-GPU flavor (not one of its nodeLabels)."""
    report = lint(job(MIG, tolerations=SPLIT))
    assert rules(report) == {"flavor"}, report.render()
    assert "Kueue may admit it on flavor a100-80gb" in report.render()


def test_a_whole_gpu_job_selecting_a_slice_without_tolerating_it_is_admitted_nowhere_it_fits() -> None:
    report = lint(job({**A100, "gke-accel/gpu-unit": "mig-1g-10gb"}))
    assert rules(report) == {"flavor"}, report.render()
    assert "untolerated taint gke-accel/split-gpu=1g.10gb" in report.render()


def test_a_native_sidecars_gpu_counts() -> None:
    resources = {"requests": {"cpu": "50m", "memory": "32Mi"}, "limits": {"nvidia.com/gpu": "1"}}
    sidecar = {"name": "side", "image": IMAGE, "restartPolicy": "Always", "securityContext": RESTRICTED,
               "resources": resources}  # fmt: skip
    with_gpu = job(A100, initContainers=[sidecar])
    report = lint(with_gpu)
    assert "gpu-count" in rules(report), report.render()  # 2 GPUs per pod, 1 per node
    plain = copy.deepcopy(with_gpu)
    del plain["spec"]["template"]["spec"]["initContainers"][0]["resources"]["limits"]
    assert lint(plain).ok


def test_a_request_above_the_limit_ranges_default_limit_without_a_limit_is_refused() -> None:
    doc = job(A100)
    doc["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"  # default limit: 1
    report = lint(doc)
    assert rules(report) == {"limit-range"}, report.render()
    assert "containers[0].resources.requests.cpu: 2 is above the namespace LimitRange's default cpu limit" in (
        report.render()
    )
    doc["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "2"
    assert lint(doc).ok, lint(doc).render()
