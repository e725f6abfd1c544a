"""The ``elastic`` rule: a workload marked resizable (``kueue.x-k8s.io/elastic-job``) is one Kueue can resize.

Kueue v0.19.2 (docs "Elastic Workloads"; pkg/controller/jobframework/validation.go ``supportedElasticJobGVKs``;
pkg/controller/jobs/job/job_webhook.go; pkg/workloadslicing/workloadslicing.go): only the value ``"true"``
enables it; only ``batch/v1`` Jobs (and Ray kinds) may carry it, so a JobSet (a multi-host TPU slice) is
refused by Kueue's webhook; partial admission (``kueue.x-k8s.io/job-min-parallelism``) and required or
preferred topology are refused with it (and a flavor with a Topology would need the alpha gate
``ElasticJobsViaWorkloadSlicesWithTAS``; the platform's flavors have none). A Job whose ``completions`` is not
above its ``parallelism`` cannot grow (the Job controller never runs more pods than completions left).
"""

from __future__ import annotations

from gke_accel.workloads.lint._model import EnvironmentPlan
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Workload, as_dict
from gke_accel.workloads.nodes import PoolNodes

ELASTIC = "kueue.x-k8s.io/elastic-job"
MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
TOPOLOGY_REQUESTS = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology")


def elastic_findings(plan: EnvironmentPlan, wl: Workload, pools: list[PoolNodes]) -> list[Finding]:
    annotations = as_dict(as_dict(wl.obj.get("metadata")).get("annotations"))
    if ELASTIC not in annotations:
        return []
    path = f"metadata.annotations.{ELASTIC}"

    def bad(where: str, message: str, hint: str, severity: str = "error") -> Finding:
        return Finding("elastic", "error" if severity == "error" else "warning", where, message, hint)

    if annotations[ELASTIC] != "true":
        return [bad(path, f'{annotations[ELASTIC]!r}: Kueue reads only "true"; the job is not resizable', '"true"')]
    if wl.kind != "Job":
        why = f"Kueue resizes only batch/v1 Jobs; its webhook refuses a {wl.kind} with this annotation"
        return [bad(path, why + " (a multi-host TPU slice is a JobSet: not resizable)", "remove it, or run a Job")]
    out: list[Finding] = []
    if plan.queues is None:
        out.append(bad(path, f"{plan.name} has no Kueue: nothing reads the annotation", "remove it", "warning"))
    if MIN_PARALLELISM in annotations:
        out.append(bad(f"metadata.annotations.{MIN_PARALLELISM}", "partial admission and an elastic job are refused "
                       "together by Kueue's Job webhook", f"remove {MIN_PARALLELISM}"))  # fmt: skip
    spec = as_dict(wl.obj.get("spec"))
    template_annotations = as_dict(as_dict(as_dict(spec.get("template")).get("metadata")).get("annotations"))
    for key in TOPOLOGY_REQUESTS:
        if key in template_annotations:
            out.append(bad(f"spec.template.metadata.annotations.{key}", "Kueue refuses a required or preferred "
                           "topology on an elastic job", "remove it"))  # fmt: skip
    completions, parallelism = spec.get("completions"), spec.get("parallelism", 1)
    if isinstance(completions, int) and isinstance(parallelism, int) and completions <= parallelism:
        out.append(bad("spec.completions", f"{completions} with parallelism {parallelism}: raising parallelism "
                       "starts no pod (never more pods than completions left)", "leave completions unset",
                       "warning"))  # fmt: skip
    return out
