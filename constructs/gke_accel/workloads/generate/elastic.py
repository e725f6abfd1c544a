"""``workload new --elastic``: a training Job whose size changes while it runs (Kueue workload slices).

Kueue v0.19.2 (feature gate ``ElasticJobsViaWorkloadSlices``, beta and on by default since 0.18,
pkg/features/kube_features.go; docs "Elastic Workloads"): a Job annotated
``kueue.x-k8s.io/elastic-job: "true"`` may change ``spec.parallelism`` while it runs. Growing it makes a
new Workload slice for the larger size; when Kueue admits it against the quota the new slice replaces the
old one (marked Finished) and Kueue removes its ``kueue.x-k8s.io/elastic-job`` scheduling gate from the new
pods; the running pods are untouched. Shrinking records the smaller count in the Workload at once and the
Job controller deletes the surplus pods, releasing their quota.

Limits (Kueue pkg/controller/jobframework/validation.go ``supportedElasticJobGVKs`` and job_webhook.go): only
``batch/v1`` Jobs (and Ray kinds) -- never a JobSet, so never a multi-host TPU slice; no partial admission
(``kueue.x-k8s.io/job-min-parallelism``); no required or preferred topology; a scale-up keeps the flavor
first assigned. The Job is NonIndexed with no ``completions`` (Kueue's own example Job leaves completions
above parallelism): parallelism is the number of workers, each one pod of the pool's shape, and the Job
completes when the workers succeed (a worker's success ends the Job's pod creation: torch elastic style).
"""

from __future__ import annotations

from typing import Any

ELASTIC_ANNOTATION = "kueue.x-k8s.io/elastic-job"
MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"


def make_elastic(job: dict[str, Any], workers: int) -> dict[str, Any]:
    """The generated Job made elastic: the annotation, ``workers`` pods at once, no completion count."""
    spec = dict(job["spec"])
    for key in ("completions", "completionMode"):
        spec.pop(key, None)
    spec["parallelism"] = workers
    meta = dict(job["metadata"])
    meta["annotations"] = {**meta.get("annotations", {}), ELASTIC_ANNOTATION: "true"}
    return {**job, "metadata": meta, "spec": spec}
