"""Build a Job, JobSet or Deployment for a team from the environment plan: the pool is chosen by
accelerator and chips/GPUs, everything else (selectors, tolerations, quota-bound resources, service
account, checkpoint bucket, priority class, queue label) comes from the plan."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gke_accel.workloads.generate import jobset as js
from gke_accel.workloads.generate._model import (
    GCSFUSE_SIDECAR_CPU_MILLIS,
    GCSFUSE_SIDECAR_MEMORY_MIB,
    EnvironmentPlan,
    checkpoint_bucket,
    pod_share,
    slice_request,
    slice_topology_of,
    storage_fuse,
)
from gke_accel.workloads.generate.defaults import check_share, default_priority
from gke_accel.workloads.generate.disruption_budget import pod_disruption_budget
from gke_accel.workloads.generate.elastic import make_elastic
from gke_accel.workloads.generate.placement import SHORT_LIVED, check_shape, choose_pool, default_kind
from gke_accel.workloads.generate.pod import RUN_AS, pod_template
from gke_accel.workloads.generate.request import KINDS, Kind, WorkloadRequest, fail, team_of
from gke_accel.workloads.generate.weights import add_weights
from gke_accel.workloads.ladder import avoid_capacity, ladder_of_pool, place_on_ladder
from gke_accel.workloads.lint.queues import QUEUE_LABEL, team_queue
from gke_accel.workloads.nodes import PoolNodes

Obj = dict[str, Any]

JOBSET_API = js.JOBSET_API
APP_RETRIES = js.APP_RETRIES  # application errors before the job (or JobSet) gives up; disruptions are free
DEFAULT_CPU, DEFAULT_MEMORY_GIB = 8, 32  # for a machine type whose size the catalog does not list


def _size(
    pool: PoolNodes, chips: int, req: WorkloadRequest, quota: tuple[int, int] | None, pods: int, sidecar: bool
) -> tuple[str, str]:
    """cpu and memory per pod, unless given: the pod's share of the node (chips / the node's chips) of
    what GKE and its DaemonSets leave for Pods, less the GCS FUSE sidecar (model/pools/allocatable.py).
    A pod that takes every chip of a TPU VM gets the whole VM, but never more than the team's quota
    allows for ``pods`` pods at once (the sidecar counts against the quota too)."""
    machine = pool.shape.machine
    if machine is None:  # machine size not in the catalog (ct4p): a modest fixed size
        millis, mib = DEFAULT_CPU * 1000, DEFAULT_MEMORY_GIB * 1024
    else:
        millis, mib = pod_share(machine, chips / max(1, pool.shape.allocatable), gcsfuse_sidecar=sidecar)
    side_cpu, side_mib = (GCSFUSE_SIDECAR_CPU_MILLIS, GCSFUSE_SIDECAR_MEMORY_MIB) if sidecar else (0, 0)
    if quota is not None:  # the team's cpu and memory quota (cores, GiB): set, or derived from its chips
        millis = min(millis, quota[0] * 1000 // pods - side_cpu)
        mib = min(mib, quota[1] * 1024 // pods - side_mib)
    millis, mib = max(250, millis), max(512, mib)
    cpu = f"{millis // 1000}" if millis % 1000 == 0 else f"{millis}m"
    return req.cpu or cpu, req.memory or f"{mib}Mi"


def _fuse(
    plan: EnvironmentPlan, pool: PoolNodes, chips: int, team: str, memory: str, *, explicit_memory: bool
) -> tuple[storage_fuse.FuseMount, str]:
    """The checkpoint mount with a file cache sized from the pod's share of the node
    (model/storage/fuse.py); a cache in memory comes out of the main container's memory."""
    cp = plan.spec.platform.checkpoints
    share = chips / max(1, pool.shape.allocatable)
    mib = int(memory[:-2]) if memory.endswith("Mi") else 0
    cache = storage_fuse.default_cache_gib(cp, share=share, boot_disk_gb=pool.plan.disk_size_gb, memory_mib=mib)
    field = "platform.checkpoints.file_cache_gib"
    if cp.file_cache == "disk":
        room = share * storage_fuse.ephemeral_allocatable_bytes(pool.plan.disk_size_gb) / storage_fuse.GIB
        if cache + storage_fuse.SIDECAR_EPHEMERAL_GIB > room:
            raise fail(
                field,
                f"{cache} GiB of file cache and the sidecar's {storage_fuse.SIDECAR_EPHEMERAL_GIB} GiB do not fit "
                f"the pod's share of a {pool.name} node's ephemeral storage ({room:.1f} GiB of a "
                f"{pool.plan.disk_size_gb} GB boot disk)",
                f"at most {max(0, int(room) - storage_fuse.SIDECAR_EPHEMERAL_GIB)}, a larger disk_size_gb, "
                "or file_cache: memory",
            )
    elif cp.file_cache == "memory" and not explicit_memory and mib:
        left = mib - cache * 1024
        if left < 512:
            raise fail(field, f"{cache} GiB of in-memory file cache leaves the pod {left} MiB", f"{mib // 2048}")
        memory = f"{left}Mi"
    return storage_fuse.checkpoint_mount(team, RUN_AS, cp, cache), memory


def _metadata(name: str, ns: str, labels: dict[str, str], template: Obj) -> Obj:
    checkov = {k: v for k, v in template["metadata"]["annotations"].items() if k.startswith("checkov.io/")}
    return {
        "name": name,
        "namespace": ns,
        "labels": {"app.kubernetes.io/name": name, **labels},
        "annotations": checkov,
    }


def new_workload(plan: EnvironmentPlan, req: WorkloadRequest) -> list[Obj]:
    """The objects of the workload (one, today), ready for ``kubectl apply``."""
    if req.kind is not None and req.kind not in KINDS:
        raise fail("--kind", f"{req.kind!r} is not a kind", KINDS)
    ns, team = team_of(plan, req.team)
    pool = choose_pool(plan, req)
    kind: Kind = req.kind or default_kind(pool)
    req = replace(req, kind=kind)
    pcs = plan.spec.platform.priority_classes
    priority = req.priority or default_priority(plan, team, kind)
    allowed = list(team.priority_classes) or [pcs.inference.name, pcs.training.name, pcs.batch.name]
    if priority not in allowed:
        raise fail("--priority", f"{priority!r}: team {team.name} may not use it", allowed)
    vms = pool.slice_vms
    if req.completions < 1 or req.parallelism < 1:
        raise fail("--completions/--parallelism", f"{req.completions}/{req.parallelism} is out of range", "1 or more")
    if vms > 1 and req.kind != "jobset":
        raise fail("--kind", f"{req.kind!r}: a {pool.plan.tpu_topology} slice has {vms} VMs, one pod each", "jobset")
    check_shape(plan, req, pool)
    chips = pool.plan.chips_per_node if pool.plan.kind == "tpu" else (req.chips or 1)
    # pods running at once: a JobSet is slices x (a pod per VM of the slice, or per GPU node)
    per_job = vms if vms > 1 else req.nodes
    pods = {"job": req.parallelism, "jobset": per_job * req.slices, "deployment": req.replicas}[kind]
    spread = kind == "jobset" and vms > 1 and req.slices > 1 and ladder_of_pool(plan, pool.name) is not None
    # Kueue admits a Deployment's pods one by one (each a plain Pod workload): its replicas spread over the rungs
    per_pod = spread or (kind == "deployment" and ladder_of_pool(plan, pool.name) is not None)
    check_share(plan, team, pool, chips * pods, "--chips" if pool.plan.kind == "tpu" else "--gpus", per_pod)
    team_plan = plan.team(team.name)
    quota = (team_plan.compute.cpu, team_plan.compute.memory_gib) if team_plan else None
    cpu, memory = _size(pool, chips, req, quota, pods, plan.spec.platform.checkpoints.enabled and req.checkpoints)
    queue = team_queue(plan, team)
    if req.elastic and (req.kind != "job" or req.completions != 1 or not queue):
        raise fail(
            "--elastic",
            f"--kind {req.kind}, --completions {req.completions}, {plan.name} queues {'on' if queue else 'off'}: "
            "Kueue resizes only a batch/v1 Job (no JobSet, so no multi-host slice), sized by --parallelism",
            "--kind job without --completions, in an environment with queues",
        )
    workload_labels = {**req.labels, **({QUEUE_LABEL: queue} if queue else {})}
    cp = plan.spec.platform.checkpoints
    bucket = checkpoint_bucket(plan.spec) if cp.enabled and req.checkpoints else None
    fuse = None
    if bucket:
        fuse, memory = _fuse(plan, pool, chips, team.name, memory, explicit_memory=req.memory is not None)
    env: list[Obj] = []
    if vms > 1:
        env = js.tpu_env(req.name, vms, req.slices)
    elif req.nodes > 1:
        env = js.torch_env(req.name, req.nodes, chips)
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
        fuse=fuse,
    )
    place_on_ladder(plan, pool.name, template["spec"])  # behind a rung: the class, not the pool's rung
    if req.kind == "deployment" and not req.flex_start:
        avoid_capacity(plan, pool.name, template["spec"], SHORT_LIVED)  # never climbs to a flex-start or queued rung
    extra: list[Obj] = []
    if req.weights:
        extra = add_weights(
            plan,
            uri=req.weights,
            gib=req.weights_gib,
            kind=kind,
            name=req.name,
            namespace=ns,
            team=team.name,
            pool=pool,
            template=template,
            uid=RUN_AS,
        )
    if req.kind == "deployment":
        selector = {"app.kubernetes.io/name": req.name}
        return [
            *extra,
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": _metadata(req.name, ns, workload_labels, template),
                "spec": {"replicas": req.replicas, "selector": {"matchLabels": selector}, "template": template},
            },
            # drains and rolling upgrades take one replica at a time (docs/lifecycle.md)
            pod_disruption_budget(name=req.name, namespace=ns, labels=selector, selector=selector),
        ]
    disruption = {"onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    if req.kind == "job":
        sweep: Obj = {}
        if req.completions > 1 or req.parallelism > 1:
            sweep = {"completions": req.completions, "parallelism": req.parallelism, "completionMode": "Indexed"}
        built = [
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
        return [make_elastic(built[0], req.parallelism)] if req.elastic else built
    if vms > 1 and slice_topology_of(plan, pool.plan.name):
        # Kueue admits the JobSet only where each slice (child Job) finds a whole free node pool
        template["metadata"]["annotations"].update(slice_request(vms))
    if req.nodes > 1:
        # every node of the job in the one pool chosen (its placement policy is per pool)
        template["spec"]["nodeSelector"][js.NODEPOOL_TOPOLOGY] = pool.name
    return [
        js.jobset(
            name=req.name,
            metadata=_metadata(req.name, ns, workload_labels, template),
            template=template,
            pods=vms if vms > 1 else req.nodes,
            slices=req.slices,
            # each slice on a node pool of its own, whole (TPU slices: one ICI domain per pool)
            exclusive=vms > 1,
            # behind a ladder each slice picks its rung (Kueue flavor) alone
            spread=spread,
        )
    ]
