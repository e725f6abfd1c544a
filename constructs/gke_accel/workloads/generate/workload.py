"""Build a Job, JobSet or Deployment for a team from the environment plan: the pool is chosen by
accelerator and chips/GPUs, everything else (selectors, tolerations, quota-bound resources, service
account, checkpoint bucket, priority class, queue label) comes from the plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from gke_accel.catalog import load_catalog
from gke_accel.workloads._model import (
    ConfigError,
    ConfigIssue,
    EnvironmentPlan,
    TeamSpec,
    accelerator_key,
    checkpoint_bucket,
)
from gke_accel.workloads.generate.defaults import check_share, default_priority, fit_quota
from gke_accel.workloads.generate.pod import pod_template
from gke_accel.workloads.lint.queues import QUEUE_LABEL, team_queue
from gke_accel.workloads.lint.team import teams_by_namespace
from gke_accel.workloads.nodes import PoolNodes, pool_nodes

Kind = Literal["job", "jobset", "deployment"]
KINDS: tuple[Kind, ...] = ("job", "jobset", "deployment")
Obj = dict[str, Any]
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
APP_RETRIES = 3  # application errors before the job (or JobSet) gives up; disruptions are free
DEFAULT_TPU_CPU, DEFAULT_TPU_MEMORY_GIB = 8, 32  # machine sizes of TPU VMs are not in the catalog


@dataclass(frozen=True)
class WorkloadRequest:
    name: str
    team: str
    kind: Kind
    accelerator: str  # v5e, l4, h100, ...
    image: str
    command: tuple[str, ...] = ()
    chips: int | None = None  # TPU: chips of the slice; GPU: GPUs per pod
    priority: str | None = None  # default: training (job/jobset), inference (deployment)
    replicas: int = 1  # deployment replicas
    completions: int = 1  # job: runs to complete (a sweep: one per experiment, JOB_COMPLETION_INDEX tells which)
    parallelism: int = 1  # job: runs at once
    cpu: str | None = None
    memory: str | None = None
    checkpoints: bool = True
    port: int | None = None  # deployment: the serving port (gets readiness and liveness probes)
    labels: dict[str, str] = field(default_factory=dict)


def _fail(flag: str, message: str, valid: Any = "") -> ConfigError:
    text = valid if isinstance(valid, str) else ", ".join(str(v) for v in valid)
    return ConfigError([ConfigIssue(flag, message, text)])


def _team(plan: EnvironmentPlan, name: str) -> tuple[str, TeamSpec]:
    for ns, team in teams_by_namespace(plan).items():
        if team.name == name:
            return ns, team
    raise _fail("--team", f"{name!r} is not a team of {plan.name}", [t.name for t in plan.spec.teams] or "none")


def choose_pool(plan: EnvironmentPlan, req: WorkloadRequest) -> PoolNodes:
    catalog = load_catalog()
    key = accelerator_key(req.accelerator, catalog)
    pools = [p for p in pool_nodes(plan, include_system=False) if key is not None and p.plan.accelerator == key[1]]
    offered = sorted({p.plan.tpu_generation or p.plan.accelerator for p in pool_nodes(plan, include_system=False)})
    if not pools:
        raise _fail("--accelerator", f"{req.accelerator!r}: no pool of {plan.name} has it", offered)
    if pools[0].plan.kind == "tpu":
        if req.chips is None:
            return pools[0]
        match = [p for p in pools if p.plan.chips_per_node * p.slice_vms == req.chips]
        if not match:
            shapes = sorted({f"{p.plan.chips_per_node * p.slice_vms} ({p.plan.tpu_topology})" for p in pools})
            raise _fail(
                "--chips", f"{req.chips} is not the chip count of a {req.accelerator} slice in {plan.name}", shapes
            )
        return match[0]
    gpus = req.chips or 1
    match = sorted((p for p in pools if p.shape.allocatable >= gpus), key=lambda p: p.shape.allocatable)
    if not match:
        raise _fail(
            "--gpus",
            f"{gpus} GPUs per pod: no {req.accelerator} pool has that many per node",
            sorted({p.shape.allocatable for p in pools}),
        )
    return match[0]


def _size(pool: PoolNodes, chips: int, req: WorkloadRequest, team: TeamSpec, pods: int) -> tuple[str, str]:
    """cpu and memory per pod: half of the node's share for the pod's chips, within the team's quota
    for ``pods`` pods at once, unless given."""
    catalog = load_catalog()
    machine = catalog.gpu_machines.get(pool.plan.machine_type) or catalog.n1_hosts.get(pool.plan.machine_type)
    share = Decimal(chips) / max(1, pool.shape.allocatable)
    if machine is not None:
        cpu = max(1, int(machine.vcpu * share / 2))
        memory = max(2, int(machine.memory_gb * share / 2))
    else:
        cpu, memory = DEFAULT_TPU_CPU, DEFAULT_TPU_MEMORY_GIB
    cpu, memory = fit_quota(team, cpu, memory, pods)
    return req.cpu or str(cpu), req.memory or f"{memory}Gi"


def _metadata(name: str, ns: str, labels: dict[str, str], template: Obj) -> Obj:
    checkov = {k: v for k, v in template["metadata"]["annotations"].items() if k.startswith("checkov.io/")}
    return {
        "name": name,
        "namespace": ns,
        "labels": {"app.kubernetes.io/name": name, **labels},
        "annotations": checkov,
    }


def _tpu_env(name: str, job: str, vms: int) -> list[Obj]:
    hosts = ",".join(f"{name}-{job}-0-{i}.{name}" for i in range(vms))
    index = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    return [
        {"name": "TPU_WORKER_ID", "valueFrom": {"fieldRef": {"fieldPath": index}}},
        {"name": "TPU_WORKER_HOSTNAMES", "value": hosts},
    ]


def new_workload(plan: EnvironmentPlan, req: WorkloadRequest) -> list[Obj]:
    """The objects of the workload (one, today), ready for ``kubectl apply``."""
    if req.kind not in KINDS:
        raise _fail("--kind", f"{req.kind!r} is not a kind", KINDS)
    ns, team = _team(plan, req.team)
    pool = choose_pool(plan, req)
    pcs = plan.spec.platform.priority_classes
    priority = req.priority or default_priority(plan, team, req.kind)
    allowed = list(team.priority_classes) or [pcs.inference.name, pcs.training.name, pcs.batch.name]
    if priority not in allowed:
        raise _fail("--priority", f"{priority!r}: team {team.name} may not use it", allowed)
    vms = pool.slice_vms
    if req.completions < 1 or req.parallelism < 1:
        raise _fail("--completions/--parallelism", f"{req.completions}/{req.parallelism} is out of range", "1 or more")
    if vms > 1 and req.kind != "jobset":
        raise _fail("--kind", f"{req.kind!r}: a {pool.plan.tpu_topology} slice has {vms} VMs, one pod each", "jobset")
    chips = pool.plan.chips_per_node if pool.plan.kind == "tpu" else (req.chips or 1)
    pods = {"job": req.parallelism, "jobset": vms, "deployment": req.replicas}[req.kind]
    check_share(team, pool, chips * pods, "--chips" if pool.plan.kind == "tpu" else "--gpus")
    cpu, memory = _size(pool, chips, req, team, pods)
    queue = team_queue(plan, team)
    workload_labels = {**req.labels, **({QUEUE_LABEL: queue} if queue else {})}
    cp = plan.spec.platform.checkpoints
    bucket = checkpoint_bucket(plan.spec) if cp.enabled and req.checkpoints else None
    env = _tpu_env(req.name, "workers", vms) if vms > 1 else []
    template = pod_template(
        name=req.name,
        pool=pool,
        chips=chips,
        image=req.image,
        command=list(req.command),
        priority=priority,
        bucket=bucket,
        team=team.name,
        cpu=cpu,
        memory=memory,
        restart=None if req.kind == "deployment" else "Never",
        env=env,
        labels=workload_labels if req.kind == "deployment" else {},
        port=req.port,
    )
    if req.kind == "deployment":
        selector = {"app.kubernetes.io/name": req.name}
        return [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": _metadata(req.name, ns, workload_labels, template),
                "spec": {"replicas": req.replicas, "selector": {"matchLabels": selector}, "template": template},
            }
        ]
    disruption = {"onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    if req.kind == "job":
        sweep: Obj = {}
        if req.completions > 1 or req.parallelism > 1:
            sweep = {"completions": req.completions, "parallelism": req.parallelism, "completionMode": "Indexed"}
        return [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": _metadata(req.name, ns, workload_labels, template),
                "spec": {
                    **sweep,
                    "backoffLimit": APP_RETRIES,
                    # preemption, Spot reclaim and eviction recreate the pod without using a retry
                    "podFailurePolicy": {"rules": [{"action": "Ignore", **disruption}]},
                    "template": template,
                },
            }
        ]
    job = {
        "parallelism": vms,
        "completions": vms,
        "completionMode": "Indexed",
        "backoffLimit": 0,
        # a lost VM fails the job with reason PodFailurePolicy; the JobSet then restarts the whole
        # slice from the last checkpoint without counting it against maxRestarts
        "podFailurePolicy": {"rules": [{"action": "FailJob", **disruption}]},
        "template": template,
    }
    return [
        {
            "apiVersion": JOBSET_API,
            "kind": "JobSet",
            "metadata": _metadata(req.name, ns, workload_labels, template),
            "spec": {
                "failurePolicy": {
                    "maxRestarts": APP_RETRIES,
                    "rules": [
                        {
                            "name": "disruptionsAreFree",
                            "action": "RestartJobSetAndIgnoreMaxRestarts",
                            "onJobFailureReasons": ["PodFailurePolicy"],
                        }
                    ],
                },
                "replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": job}}],
            },
        }
    ]
