"""lint against what GKE and the cluster enforce, on the shipped environments: the tolerations GKE's
ExtendedResourceToleration admission plugin adds, the Job controller's pod labels, quotas as the
ResourceQuota and Kueue enforce them, and Kueue's priority label. Expected verdicts are the real
engines' (kube-apiserver/scheduler 1.33 + Kueue 0.17, /work/shared/findings/real-engines.md F5, p01,
s08, s13, p08), not lint's own."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from workload_cases import tpu_job, workload_env_config

from gke_accel.model import EnvironmentPlan, load_environment, load_environment_text
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.lint.engine import LintReport
from helpers import QUOTA_ONLY_CONFIG, to_yaml

CONFIG = Path(__file__).resolve().parents[2] / "config"
Doc = dict[str, Any]
RESTRICTED = {
    "runAsNonRoot": True,
    "runAsUser": 10001,
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def env(name: str) -> EnvironmentPlan:
    return load_environment(CONFIG / f"{name}.yaml")


def lint(plan: EnvironmentPlan, *docs: Doc) -> LintReport:
    return lint_texts(plan, [("case.yaml", yaml.safe_dump_all(list(docs)))])


def messages(report: LintReport, severity: str = "error") -> list[str]:
    return [f"{f.rule}: {f.message}" for v in report.verdicts for f in v.findings if f.severity == severity]


def job(ns: str, resources: dict[str, str], selector: dict[str, str], **spec: Any) -> Doc:
    """A plain Job as a user writes it: no tolerations (GKE adds the accelerator ones)."""
    pod: Doc = {
        "restartPolicy": "Never",
        "nodeSelector": selector,
        "containers": [
            {
                "name": "main",
                "image": "registry.example.com/train:1",
                # cpu/memory limits too: the namespaces' LimitRange gives a container without them its default
                # limits (1 cpu, 2Gi), below these requests, and the API server refuses the pod (W4c)
                "resources": {
                    "requests": {"cpu": "2", "memory": "8Gi", **resources},
                    "limits": {"cpu": "2", "memory": "8Gi", **resources},
                },
                "securityContext": RESTRICTED,
            }
        ],
        **spec.pop("pod", {}),
    }
    meta: Doc = {"name": spec.pop("name", "case"), "namespace": ns, "labels": spec.pop("labels", {})}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": {"backoffLimit": 0, "template": {"spec": pod}, **spec},
    }


T4 = {"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"}
L4 = {"cloud.google.com/gke-accelerator": "nvidia-l4"}
# staging's L4s are behind its capacity ladder (config/staging.yaml capacity.l4): a pod selects the
# ComputeClass l4 and tolerates the class taint and the Spot rung's taint (docs/capacity.md)
L4_CLASS = {"cloud.google.com/compute-class": "l4", **L4}
L4_CLASS_TOLERATIONS = [
    {"key": "cloud.google.com/compute-class", "operator": "Equal", "value": "l4", "effect": "NoSchedule"},
    {"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
]
V5P = {"cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice", "cloud.google.com/gke-tpu-topology": "2x2x2"}


# --- F5: GKE's ExtendedResourceToleration -------------------------------------------------------------


def test_gpu_job_without_an_explicit_toleration_is_accepted() -> None:
    """F5: GPU Jobs naming nvidia.com/gpu and no toleration ran (the API server added it)."""
    report = lint(env("prod"), job("serving", {"nvidia.com/gpu": "1"}, T4, pod={"priorityClassName": "inference"}))
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("t4-serve",)


def test_cpu_only_pod_selecting_an_accelerator_pool_does_not_tolerate_its_taint() -> None:
    """F2 fixed: a pod that names no accelerator gets no accelerator toleration, so GPU nodes repel it."""
    report = lint(env("prod"), job("serving", {}, T4, pod={"priorityClassName": "inference"}))
    assert not report.ok
    assert any("does not tolerate nvidia.com/gpu=present:NoSchedule" in m for m in messages(report))


def test_admission_adds_only_accelerator_tolerations_not_spot() -> None:
    """dev's v5e pool is Spot: GKE adds the google.com/tpu toleration, not cloud.google.com/gke-spot; without
    Kueue (dev's config less ``queues:``) nothing else adds it, and the pod is refused by the Spot taint."""
    sel = {"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x2"}
    data = yaml.safe_load(Path("config/dev.yaml").read_text(encoding="utf-8"))
    del data["queues"]
    report = lint(load_environment_text(to_yaml(data)), job("nlp", {"google.com/tpu": "4"}, sel))
    errors = messages(report)
    assert any("does not tolerate cloud.google.com/gke-spot=true:NoSchedule" in m for m in errors), errors
    assert not any("google.com/tpu=present" in m for m in errors)


def test_kueue_adds_its_flavors_tolerations_and_labels() -> None:
    """W4a: dev uses Kueue, whose Spot flavor adds the Spot toleration (and its node labels) to the pods it
    admits: the same Job runs there (real engines: tests/e2e/test_lint_agrees.py)."""
    sel = {"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x2"}
    report = lint(env("dev"), job("nlp", {"google.com/tpu": "4"}, sel))
    assert report.ok, report.render()


# --- p01: the Job controller's labels -----------------------------------------------------------------


def indexed_v5p_job(selector: dict[str, str]) -> list[Doc]:
    """prod's 2-VM v5p slice as an Indexed Job with a headless Service (p01)."""
    j = job("llm-training", {"google.com/tpu": "4"}, V5P, name="p01", parallelism=2, completions=2)
    j["spec"]["completionMode"] = "Indexed"
    j["spec"]["template"]["spec"]["subdomain"] = "p01"
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "p01", "namespace": "llm-training"},
        "spec": {"clusterIP": "None", "selector": selector},
    }
    return [svc, j]


@pytest.mark.parametrize("label", ["job-name", "batch.kubernetes.io/job-name"])
def test_headless_service_selecting_the_job_controllers_label_is_accepted(label: str) -> None:
    # the Job controller labels each pod job-name=<job> and batch.kubernetes.io/job-name=<job>
    report = lint(env("prod"), *indexed_v5p_job({label: "p01"}))
    assert not [m for m in messages(report) if m.startswith("multi-host")], report.render()


def test_headless_service_selecting_another_job_is_rejected() -> None:
    report = lint(env("prod"), *indexed_v5p_job({"job-name": "other"}))
    assert any("needs a headless Service" in m for m in messages(report)), report.render()


# --- s13 / p08: quotas as enforced -------------------------------------------------------------------


def l4_job(team: str, gpus: int, pods: int = 1) -> Doc:
    cls = {"research": "training", "serving": "inference", "nlp": "training"}[team]
    return job(
        team,
        {"nvidia.com/gpu": str(gpus)},
        L4_CLASS,
        labels={"kueue.x-k8s.io/queue-name": "team"},
        pod={"priorityClassName": cls, "tolerations": L4_CLASS_TOLERATIONS},
        parallelism=pods,
        completions=pods,
    )


def test_staging_team_without_an_l4_share_may_borrow_up_to_its_resource_quota() -> None:
    """s13: research has no L4 share, its ResourceQuota says requests.nvidia.com/gpu=5 (the Kueue ceiling:
    nlp lends 1, serving 4), Kueue admitted the pod by borrowing and it ran. One Job's pods take one
    flavor: the reservation rung holds 2 GPUs (nlp's 1 and serving's 1 there, both lent), so a Job of 2
    borrows them all and one of 3 fits no rung (on-demand holds 1, Spot 2)."""
    report = lint(env("staging"), l4_job("research", 1))
    assert report.ok, report.render()
    assert lint(env("staging"), l4_job("research", 1, pods=2)).ok
    three = messages(lint(env("staging"), l4_job("research", 1, pods=3)))
    assert any("needs 3 of Kueue flavor l4-reservation-r-l4-serve" in m and "Kueue never admits it" in m
               for m in three), three  # fmt: skip


def test_staging_over_the_resource_quota_is_rejected() -> None:
    report = lint(env("staging"), l4_job("research", 1, pods=6))
    assert any("research's quota is requests.nvidia.com/gpu=5" in m for m in messages(report)), report.render()


def test_prod_gpu_model_outside_the_share_runs_and_is_only_a_warning() -> None:
    """p08: serving's share is t4 only, yet 8 H100s ran: the ResourceQuota (8) counts GPUs of any model."""
    h100 = {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
    report = lint(env("prod"), job("serving", {"nvidia.com/gpu": "8"}, h100, pod={"priorityClassName": "inference"}))
    assert report.ok, report.render()
    assert any("share is 0: not enforced" in m for m in messages(report, "warning"))
    over = lint(env("prod"), job("serving", {"nvidia.com/gpu": "8"}, h100, parallelism=2, completions=2,
                                 pod={"priorityClassName": "inference"}))  # fmt: skip
    assert any("serving's quota is requests.nvidia.com/gpu=8" in m for m in messages(over))


def kueue_test_env(v5e: int) -> EnvironmentPlan:
    data = workload_env_config()
    data["queues"] = {}
    data["teams"][0]["accelerators"]["v5e"] = v5e
    return load_environment_text(to_yaml(data), expected_name="test")


def test_a_flavor_with_no_nominal_quota_in_the_cohort_is_never_admitted() -> None:
    """Kueue admits per flavor up to nominal + borrowable. With v5e 16 the on-demand 2x4 flavor (16 chips)
    takes the whole share, the Spot 2x2 flavor has nominal 0 in every ClusterQueue, so a 2x2 job waits
    forever though the ResourceQuota (16 chips) lets its pod in."""
    docs = copy.deepcopy(tpu_job())
    docs["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "team"}
    bad = lint(kueue_test_env(16), docs)
    assert any("v5e-2x2-spot: team nlp has no quota there" in m and "stays pending" in m for m in messages(bad)), (
        bad.render()
    )
    assert lint(kueue_test_env(32), docs).ok  # 16 nominal on each flavor


# --- s08: Kueue's priority label -----------------------------------------------------------------------


@pytest.mark.parametrize(("label", "ok"), [("training", True), ("batch", True), ("inference", False)])
def test_kueue_priority_label_the_team_may_not_use_is_an_error(label: str, ok: bool) -> None:
    """research may use training and batch. Kueue takes the workload's priority from the label and admits
    it (s08: 8 chips reserved at 100000). The pods name the same class, as the priority fence requires
    (a label differing from priorityClassName is `priority-label`'s error, test_priority_label_rule.py)."""
    j = l4_job("research", 1)
    j["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = label
    j["spec"]["template"]["spec"]["priorityClassName"] = label
    report = lint(env("staging"), j)
    assert report.ok is ok, report.render()
    if not ok:
        # the priority fence refuses it at creation (tests/e2e/test_priority_fence.py: Forbidden)
        assert any(
            "may not use 'inference': the API server refuses the workload when it is created (the priority "
            "fence, ValidatingAdmissionPolicy 'gke-accel-kueue-priority': Forbidden)" in m
            for m in messages(report)
        ), report.render()


def test_forbidden_priority_class_says_the_fence_refuses_the_workload() -> None:
    j = l4_job("research", 1)
    j["spec"]["template"]["spec"]["priorityClassName"] = "inference"
    report = lint(env("staging"), j)
    assert any(
        "may not use 'inference': the API server refuses the workload when it is created (the priority fence)" in m
        for m in messages(report)
    ), report.render()
    # without Kueue (no fence) the class's zero-pod ResourceQuota refuses the pods (tests/e2e/test_quota_limits.py)
    j = job("vision", {"nvidia.com/gpu": "1"}, L4, pod={"priorityClassName": "inference"})
    report = lint(load_environment(QUOTA_ONLY_CONFIG), j)
    assert any(
        "team vision may not use 'inference': its pods are refused (the class's zero-pod ResourceQuota)" in m
        for m in messages(report)
    ), report.render()
