"""lint reports every independent problem of a workload at once: a pod asking for more GPUs than any
selected node has gets `gpu-count` even when its tolerations are wrong too (the newcomer's case:
`nvidia.com/gpu: 3` on 1-GPU L4 nodes with no tolerations showed only `tolerations`).

A pod asking for a GPU needs no toleration of its own for the GPU taint: GKE's ExtendedResourceToleration
admission adds `nvidia.com/gpu: Exists` (test_lint_as_enforced F5). The wrong-tolerations case is therefore
a pod that selects the Spot pool (`cloud.google.com/gke-spot: "true"`) without tolerating its Spot taint,
which no admission plugin adds."""

from __future__ import annotations

import yaml
from workload_cases import gpu_job

from gke_accel.model import EnvironmentPlan
from gke_accel.workloads.lint import lint_texts


def rules(env: EnvironmentPlan, gpus: int, tolerations: bool) -> set[str]:
    job = gpu_job(gpus)
    if not tolerations:
        pod = job["spec"]["template"]["spec"]
        pod["nodeSelector"]["cloud.google.com/gke-spot"] = "true"  # the 1-GPU L4 Spot pool only
        pod.pop("tolerations")  # GKE adds nvidia.com/gpu's, not the Spot taint's
    report = lint_texts(env, [("job.yaml", yaml.safe_dump(job))])
    return {f.rule for v in report.verdicts for f in v.findings if f.severity == "error"}


def test_too_many_gpus_and_no_tolerations_report_both(env: EnvironmentPlan) -> None:
    # The test environment's Spot L4 node has 1 GPU (its largest L4 node, on demand, has 2).
    assert {"tolerations", "gpu-count"} <= rules(env, gpus=4, tolerations=False)


def test_a_fitting_pod_without_tolerations_reports_only_tolerations(env: EnvironmentPlan) -> None:
    found = rules(env, gpus=1, tolerations=False)
    assert "tolerations" in found and "gpu-count" not in found


def test_too_many_gpus_with_tolerations_reports_gpu_count_alone(env: EnvironmentPlan) -> None:
    found = rules(env, gpus=4, tolerations=True)
    assert "gpu-count" in found and "tolerations" not in found
