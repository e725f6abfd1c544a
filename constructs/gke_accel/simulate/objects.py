"""A trace job as the objects ``gke-accel workload new`` makes for it (same pool choice, requests, queue
label, priority class, checkpoint bucket), suspended for Kueue. For the wall clock the pods carry the
annotation the twin's kwok stage reads to complete them (``gke-accel/run-seconds``, wall seconds after
Running); for the virtual clock they carry none (kwok leaves them Running: the runner completes them)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gke_accel.model import ConfigError, ConfigIssue, EnvironmentPlan
from gke_accel.simulate.trace import TraceJob
from gke_accel.workloads.generate import WorkloadRequest, new_workload

RUN_SECONDS = "gke-accel/run-seconds"
JOB_LABEL = "gke-accel/sim-job"  # on the workload and its pods: which trace job they are
IMAGE = "us-docker.pkg.dev/gke-accel/sim/idle:1"  # never pulled: kwok runs no containers
Obj = dict[str, Any]


@dataclass(frozen=True)
class Submission:
    """The objects of one trace job and what the runner needs to follow them."""

    job: TraceJob
    namespace: str
    kind: str  # Job | JobSet
    chips: int  # accelerators the whole job holds when it runs
    resource: str  # google.com/tpu | nvidia.com/gpu
    objects: tuple[Obj, ...]
    pods: int = 1  # pods of the whole job when it runs


def _pod_templates(obj: Obj) -> list[Obj]:
    if obj["kind"] == "JobSet":
        return [rj["template"]["spec"]["template"] for rj in obj["spec"]["replicatedJobs"]]
    return [obj["spec"]["template"]]


def _held(obj: Obj) -> tuple[int, str, int]:
    """(accelerators the workload holds at once, the resource name, its pods)."""
    total, name = 0, ""
    if obj["kind"] == "JobSet":
        parts = [(rj["replicas"] * rj["template"]["spec"]["parallelism"], rj["template"]["spec"]["template"])
                 for rj in obj["spec"]["replicatedJobs"]]  # fmt: skip
    else:
        parts = [(obj["spec"].get("parallelism", 1), obj["spec"]["template"])]
    for pods, template in parts:
        for c in template["spec"]["containers"]:
            for res, qty in c.get("resources", {}).get("limits", {}).items():
                if res in ("google.com/tpu", "nvidia.com/gpu"):
                    total, name = total + pods * int(qty), res
    return total, name, sum(int(pods) for pods, _ in parts)


def submission(plan: EnvironmentPlan, job: TraceJob, run_seconds: float | None, replicas: int = 1) -> Submission:
    """The objects for ``job``, their pods annotated to complete after ``run_seconds`` wall seconds (None:
    not annotated); raises ConfigError (from ``workload new``'s checks) when the environment cannot run it.
    A deployment (``job.serving``) is checked at ``replicas`` (its largest count) and made with its row's
    count; its pods carry no run time (they serve until scaled away) and Kueue gates them one by one."""
    req = WorkloadRequest(
        name=job.name, team=job.team, kind=job.kind,  # type: ignore[arg-type]
        accelerator=job.accelerator, image=IMAGE, chips=job.chips, priority=job.priority,
        slices=job.slices, labels={JOB_LABEL: job.name}, replicas=max(replicas, 1),
    )  # fmt: skip
    # the workload first (a Deployment comes with its PodDisruptionBudget)
    objects = sorted(new_workload(plan, req), key=lambda o: o["kind"] not in ("Job", "JobSet", "Deployment"))
    if job.serving:
        objects[0]["spec"]["replicas"] = job.replicas or 0
        run_seconds = None
    for obj in objects[:1]:
        if not job.serving:
            obj["spec"]["suspend"] = True  # Kueue unsuspends it on admission
        for template in _pod_templates(obj):
            meta = template.setdefault("metadata", {})
            if run_seconds is not None:
                meta.setdefault("annotations", {})[RUN_SECONDS] = f"{max(run_seconds, 0.001):.3f}"
            meta.setdefault("labels", {})[JOB_LABEL] = job.name
    chips, resource, pods = _held(objects[0])
    return Submission(job, objects[0]["metadata"]["namespace"], objects[0]["kind"], chips, resource, tuple(objects),
                      pods)  # fmt: skip


def check_trace(plan: EnvironmentPlan, jobs: Iterable[TraceJob], source: str) -> None:
    """Every job of the trace can be made for this environment; else one ConfigError naming each job."""
    issues: list[ConfigIssue] = []
    largest: dict[str, int] = {}
    for job in jobs:
        if job.serving:
            largest[job.name] = max(largest.get(job.name, 0), job.replicas or 0)
    for job in jobs:
        if job.serving and job.name not in largest:
            continue  # one check per Deployment, at its largest replica count
        try:
            submission(plan, job, job.duration, largest.pop(job.name, 1))
        except ConfigError as err:
            for issue in err.issues:
                field = issue.path.removeprefix("--").replace("gpus", "chips")
                message = issue.message
                if len(message) > 300:  # the generator echoes a value whole (a 200 KB team name)
                    message = f"{message[:200]}...{message[-80:]}"
                issues.append(ConfigIssue(f"{source}: job {job.name}: {field}", message, issue.valid[:300]))
    if issues:
        raise ConfigError(issues)
