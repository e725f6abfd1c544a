"""Every lint rule with an accepted and a rejected workload, against a test environment with
single-host and multi-host v5e pools, two L4 pools and two teams."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from workload_cases import gpu_job, multi_host_jobset, tpu_job

from gke_accel.model import EnvironmentPlan
from gke_accel.workloads.lint import LintReport, lint_texts

Doc = dict[str, Any]


def pod_of(doc: Doc) -> Doc:
    if doc["kind"] == "JobSet":
        return doc["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    if doc["kind"] == "Pod":
        return doc["spec"]
    return doc["spec"]["template"]["spec"]


def edit(base: Callable[[], Doc], change: Callable[[Doc], object]) -> Callable[[], list[Doc]]:
    def build() -> list[Doc]:
        doc = base()
        change(doc)
        return [doc]

    return build


def limits(doc: Doc) -> Doc:
    res: Doc = pod_of(doc)["containers"][0]["resources"]
    return res.setdefault("limits", {})


def as_pod(doc: Doc) -> Doc:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": doc["metadata"], "spec": doc["spec"]["template"]["spec"]}


def indexed_job_with_service(service: bool) -> list[Doc]:
    job = multi_host_jobset()["spec"]["replicatedJobs"][0]["template"]["spec"]
    job["template"]["spec"]["subdomain"] = "mh"
    # a bare Job keeps its pods on one slice only by selecting one of the slice pools
    job["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-nodepool"] = "v5e-mh-s0"
    job["podFailurePolicy"]["rules"][0]["action"] = "Ignore"
    doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "mh", "namespace": "nlp"}, "spec": job}
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "mh", "namespace": "nlp"},
        "spec": {"clusterIP": "None", "selector": {"app": "train"}},
    }
    return [doc, svc] if service else [doc]


@dataclass(frozen=True)
class Case:
    rule: str
    severity: str
    good: Callable[[], list[Doc]]
    bad: Callable[[], list[Doc]]
    text: str


def _set(d: Doc, key: str, value: Any) -> None:
    d[key] = value


CASES = {
    "resource-name-tpu": Case(
        "resource-name",
        "error",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: pod_of(d)["containers"][0].update(resources={"limits": {"cloud.google.com/tpu": 4}})),
        "use google.com/tpu",
    ),
    "resource-name-gpu": Case(
        "resource-name",
        "error",
        edit(gpu_job, lambda d: None),
        edit(gpu_job, lambda d: pod_of(d)["containers"][0].update(resources={"limits": {"nvidia.com/gpus": 1}})),
        "use nvidia.com/gpu",
    ),
    "extended-limits": Case(
        "extended-limits",
        "error",
        edit(gpu_job, lambda d: None),
        edit(gpu_job, lambda d: pod_of(d)["containers"][0].update(resources={"requests": {"nvidia.com/gpu": 1}})),
        "without a limit",
    ),
    "no-pool-topology": Case(
        "no-pool",
        "error",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: pod_of(d)["nodeSelector"].update({"cloud.google.com/gke-tpu-topology": "4x4"})),
        "'4x4' matches no pool; pools offer 2x2 (v5e), 2x4 (v5e-mh-s0, v5e-mh-s1)",
    ),
    "no-pool-spot": Case(
        "no-pool",
        "error",
        edit(gpu_job, lambda d: pod_of(d)["nodeSelector"].update({"cloud.google.com/gke-spot": "true"})),
        edit(
            tpu_job,
            lambda d: pod_of(d)["nodeSelector"].update(
                {"cloud.google.com/gke-tpu-topology": "2x4", "cloud.google.com/gke-spot": "true"}
            ),
        ),
        "together the node selectors match no pool (v5e: nodeSelector cloud.google.com/gke-tpu-"
        "topology=2x4 (nodes have 2x2); v5e-mh-s0: nodeSelector cloud.google.com/gke-spot=true "
        "(nodes have no such label)",
    ),
    "no-pool-affinity": Case(
        "no-pool",
        "error",
        edit(
            gpu_job,
            lambda d: pod_of(d).update(
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "cloud.google.com/gke-accelerator",
                                            "operator": "In",
                                            "values": ["nvidia-l4"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            ),
        ),
        edit(
            gpu_job,
            lambda d: pod_of(d).update(
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "cloud.google.com/gke-accelerator",
                                            "operator": "In",
                                            "values": ["nvidia-h100-80gb"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            ),
        ),
        "required node affinity matches none",
    ),
    "no-pool-kind": Case(
        "no-pool",
        "error",
        edit(gpu_job, lambda d: None),
        edit(
            gpu_job,
            lambda d: (
                limits(d).update({"nvidia.com/gpu": "1", "google.com/tpu": "4"}) or limits(d).pop("nvidia.com/gpu")
            ),
        ),
        "matches no pool",
    ),
    "tolerations": Case(
        "tolerations",
        "error",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: _set(pod_of(d), "tolerations", [copy.deepcopy(pod_of(tpu_job())["tolerations"][0])])),
        "does not tolerate cloud.google.com/gke-spot=true:NoSchedule (pool v5e)",
    ),
    "gpu-count": Case(
        "gpu-count",
        "error",
        lambda: [gpu_job(2)],
        lambda: [gpu_job(4)],
        "asks for 4 GPUs per pod, but a node of the selected pools has at most 2",
    ),
    # node-size: cpu/memory against GKE's allocatable of the machine (model/pools/allocatable.py). Expected
    # limits from the hand-written fixtures: ct5lp-hightpu-4t 185653Mi (tests/fixtures/gke-nodes/
    # tpu-v5e-single-host.yaml); the largest L4 host of the environment, g2-standard-24, by GKE's
    # "Plan node sizes" tiers worked by hand: 24000m - (60 + 10 + 2x5 + 20x2.5)m = 23870m. Both below the
    # team's quota, so only node-size can fire. The accepted memory, 177Gi (181,248Mi), also fits a node whose
    # capacity is 2% below the machine's 192 GiB (allocatable 181,799Mi: tests/workloads/test_node_fit.py),
    # as the e2e tier's nodes are (tests/e2e/test_workloads.py compares this case with the scheduler there).
    "node-size-memory": Case(
        "node-size",
        "error",
        edit(tpu_job, lambda d: [r.update(memory="177Gi") for r in pod_of(d)["containers"][0]["resources"].values()]),
        edit(tpu_job, lambda d: [r.update(memory="182Gi") for r in pod_of(d)["containers"][0]["resources"].values()]),
        "memory 182.0Gi (a node has 181.3Gi)",
    ),
    "node-size-cpu": Case(
        "node-size",
        "error",
        edit(lambda: gpu_job(1), lambda d: limits(d).update(cpu="23870m")),
        edit(lambda: gpu_job(1), lambda d: limits(d).update(cpu="24")),
        "cpu 24 (a node has 23.87)",
    ),
    "tpu-chips-over": Case(
        "tpu-chips",
        "error",
        edit(tpu_job, lambda d: None),
        edit(
            tpu_job,
            lambda d: (
                limits(d).update({"google.com/tpu": "8"}) or pod_of(d)["containers"][0]["resources"].pop("requests")
            ),
        ),
        "asks for 8 TPU chips per pod",
    ),
    "tpu-chips-multi-host": Case(
        "tpu-chips",
        "error",
        lambda: [multi_host_jobset()],
        edit(
            multi_host_jobset,
            lambda d: pod_of(d)["containers"][0].update(resources={"limits": {"google.com/tpu": "2"}}),
        ),
        "each pod takes all 4 chips of its VM",
    ),
    "tpu-chips-idle": Case(
        "tpu-chips",
        "warning",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: pod_of(d)["containers"][0].update(resources={"limits": {"google.com/tpu": "1"}})),
        "uses 1 of the 4 chips",
    ),
    "multi-host-parallelism": Case(
        "multi-host",
        "error",
        lambda: [multi_host_jobset()],
        edit(
            multi_host_jobset,
            lambda d: d["spec"]["replicatedJobs"][0]["template"]["spec"].update(parallelism=1, completions=1),
        ),
        "a 2x4 slice has 2 VMs, one pod each",
    ),
    "multi-host-indexed": Case(
        "multi-host",
        "error",
        lambda: [multi_host_jobset()],
        edit(multi_host_jobset, lambda d: d["spec"]["replicatedJobs"][0]["template"]["spec"].pop("completionMode")),
        "needs its index",
    ),
    "multi-host-kind": Case(
        "multi-host",
        "error",
        lambda: [multi_host_jobset()],
        lambda: [
            as_pod(
                {
                    "metadata": {"name": "p", "namespace": "nlp"},
                    "spec": {"template": {"spec": pod_of(multi_host_jobset())}},
                }
            )
        ],
        "its pods must start together",
    ),
    "multi-host-headless-service": Case(
        "multi-host",
        "error",
        lambda: indexed_job_with_service(True),
        lambda: indexed_job_with_service(False),
        "needs a headless Service",
    ),
    "quota-total": Case(
        "quota",
        "error",
        edit(tpu_job, lambda d: d["spec"].update(parallelism=4)),
        edit(tpu_job, lambda d: d["spec"].update(parallelism=5)),
        "requests 20 google.com/tpu at once; team nlp's quota is requests.google.com/tpu=16",
    ),
    "quota-share": Case(
        "quota",
        "error",
        lambda: [gpu_job(1, "vision")],
        lambda: [gpu_job(2, "vision")],
        "team vision's quota is requests.nvidia.com/gpu=1",
    ),
    "quota-cpu": Case(
        "quota",
        "error",
        lambda: [gpu_job(1, "vision")],
        edit(lambda: gpu_job(1, "vision"), lambda d: limits(d).update(cpu="9")),
        "requests 9 cpu at once; team vision's quota is requests.cpu=8",
    ),
    "quota-pods": Case(
        "quota",
        "error",
        edit(lambda: gpu_job(0, "vision"), lambda d: d["spec"].update(parallelism=3)),
        edit(lambda: gpu_job(0, "vision"), lambda d: d["spec"].update(parallelism=4)),
        "runs 4 pods at once; team vision may run 3",
    ),
    "priority-unknown": Case(
        "priority",
        "error",
        edit(tpu_job, lambda d: _set(pod_of(d), "priorityClassName", "batch")),
        edit(tpu_job, lambda d: _set(pod_of(d), "priorityClassName", "urgent")),
        "'urgent' is not a priority class of this environment",
    ),
    "priority-team": Case(
        "priority",
        "error",
        lambda: [gpu_job(1, "vision")],
        edit(lambda: gpu_job(1, "vision"), lambda d: _set(pod_of(d), "priorityClassName", "inference")),
        "team vision may not use 'inference'",
    ),
    "namespace": Case(
        "namespace",
        "warning",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: d["metadata"].pop("namespace")),
        "is not set",
    ),
    "retry-disruption": Case(
        "retry",
        "warning",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: d["spec"].pop("podFailurePolicy")),
        "counts toward backoffLimit (3)",
    ),
    "retry-jobset": Case(
        "retry",
        "warning",
        lambda: [multi_host_jobset()],
        edit(multi_host_jobset, lambda d: d["spec"].pop("failurePolicy")),
        "counts toward backoffLimit (0)",
    ),
    "retry-restart-policy": Case(
        "retry",
        "error",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: _set(pod_of(d), "restartPolicy", "OnFailure")),
        "a podFailurePolicy needs restartPolicy: Never",
    ),
    "retry-bare-pod": Case(
        "retry", "warning", lambda: [as_pod(gpu_job(2))], lambda: [as_pod(tpu_job())], "a bare Pod on Spot VMs"
    ),
    "capacity": Case(
        "capacity",
        "warning",
        edit(tpu_job, lambda d: d["spec"].update(parallelism=4)),
        edit(lambda: gpu_job(2), lambda d: d["spec"].update(parallelism=3)),
        "runs 3 pods at once, but at their maximum size the pools it fits (l4x2) hold 2",
    ),
    "tpu-selectors": Case(
        "tpu-selectors",
        "warning",
        edit(tpu_job, lambda d: None),
        edit(tpu_job, lambda d: pod_of(d).pop("nodeSelector")),
        "TPU pods should select",
    ),
}


def run(env: EnvironmentPlan, docs: list[Doc]) -> LintReport:
    return lint_texts(env, [("test.yaml", yaml.safe_dump_all(docs))])


def findings(report: LintReport, rule: str) -> list[str]:
    return [f"{f.severity}: {f.message} {f.hint}" for v in report.verdicts for f in v.findings if f.rule == rule]


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_rule_accepts(env: EnvironmentPlan, case_id: str) -> None:
    case = CASES[case_id]
    report = run(env, case.good())
    assert not [t for t in findings(report, case.rule) if t.startswith(case.severity)], report.render()
    if case.severity == "error":
        assert report.ok, report.render()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_rule_rejects(env: EnvironmentPlan, case_id: str) -> None:
    case = CASES[case_id]
    report = run(env, case.bad())
    matching = [t for t in findings(report, case.rule) if t.startswith(case.severity)]
    assert matching and any(case.text in t for t in matching), report.render()
    if case.severity == "error":  # an error fails the report (a warning case's workload may break other rules too)
        assert not report.ok, report.render()


def test_schedules_reports_the_pools(env: EnvironmentPlan) -> None:
    report = run(env, [tpu_job(), multi_host_jobset(), gpu_job(2)])
    assert [v.pools for v in report.verdicts] == [("v5e",), ("v5e-mh-s0", "v5e-mh-s1"), ("l4x2",)]
    assert report.ok


def test_unreadable_and_skipped_documents(env: EnvironmentPlan) -> None:
    report = lint_texts(env, [("a.yaml", "kind: ConfigMap\nmetadata: {name: x}\n---\n[1, 2]\n"), ("b.yaml", "a: [")])
    assert report.notes == ("a.yaml#1: ConfigMap/x is not a workload; not checked",)
    assert report.unreadable[0] == "a.yaml#2: not a Kubernetes object (no kind)"
    assert report.unreadable[1].startswith("b.yaml line 1: not valid YAML")
    assert not report.ok
