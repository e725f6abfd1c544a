"""Build a Job, JobSet or Deployment for a team from the environment plan: the pool is chosen by
accelerator and chips/GPUs, everything else (selectors, tolerations, quota-bound resources, service
account, checkpoint bucket, priority class, queue label) comes from the plan."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from gke_accel.catalog import load_catalog
from gke_accel.workloads.generate import jobset as js
from gke_accel.workloads.generate._model import (
    GCSFUSE_SIDECAR_CPU_MILLIS,
    GCSFUSE_SIDECAR_MEMORY_MIB,
    ConfigError,
    ConfigIssue,
    EnvironmentPlan,
    TeamSpec,
    accelerator_key,
    accelerator_name,
    checkpoint_bucket,
    pod_share,
    slice_request,
    slice_topology_of,
    storage_fuse,
)
from gke_accel.workloads.generate.defaults import check_share, default_priority
from gke_accel.workloads.generate.disruption_budget import pod_disruption_budget
from gke_accel.workloads.generate.elastic import make_elastic
from gke_accel.workloads.generate.pod import RUN_AS, pod_template
from gke_accel.workloads.generate.weights import add_weights
from gke_accel.workloads.ladder import avoid_capacity, ladder_of_pool, place_on_ladder
from gke_accel.workloads.lint.queues import QUEUE_LABEL, team_queue
from gke_accel.workloads.lint.team import teams_by_namespace
from gke_accel.workloads.nodes import PoolNodes, pool_nodes, slice_pools, slices_of

Kind = Literal["job", "jobset", "deployment"]
KINDS: tuple[Kind, ...] = ("job", "jobset", "deployment")
Obj = dict[str, Any]
JOBSET_API = js.JOBSET_API
APP_RETRIES = js.APP_RETRIES  # application errors before the job (or JobSet) gives up; disruptions are free
DEFAULT_CPU, DEFAULT_MEMORY_GIB = 8, 32  # for a machine type whose size the catalog does not list
SHORT_LIVED = ("flex-start", "queued")  # consumption of pools whose VMs live at most 7 days


@dataclass(frozen=True)
class WorkloadRequest:
    name: str
    team: str
    kind: Kind | None  # None: a JobSet for a multi-host TPU slice, else a Job (``default_kind``)
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
    slices: int = 1  # jobset on a multi-host TPU slice: slices (child Jobs, one node pool each)
    nodes: int = 1  # jobset on GPUs: nodes (pods, one per node) of one compact-placement pool
    elastic: bool = False  # job: resizable while it runs (Kueue workload slices, generate/elastic.py)
    weights: str | None = None  # deployment: gs://BUCKET/PATH/ of the model weights (generate/weights.py)
    weights_gib: int | None = None  # Hyperdisk ML: the volume's size
    flex_start: bool = False  # deployment: may run on flex-start / queued-provisioning capacity (at most 7 days)


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
    pools = [p for p in pool_nodes(plan, include_system=False) if key is not None and p.plan.unit == key[1]]
    # as the flag takes them (l4, v5e), not the node labels (nvidia-l4); accelerator pools only
    offered = sorted({accelerator_name(p.plan.unit, catalog) for p in pool_nodes(plan, include_system=False)
                      if p.plan.kind in ("tpu", "gpu")})  # fmt: skip
    if not pools:
        raise _fail("--accelerator", f"{req.accelerator!r}: no pool of {plan.name} has it", offered)
    if req.kind == "deployment" and not req.flex_start:
        # a server is not a batch job: flex-start and queued-provisioning VMs live at most 7 days (W8)
        lasting = [p for p in pools if p.plan.consumption not in SHORT_LIVED]
        if not lasting:
            raise _fail(
                "--kind",
                f"deployment: every {req.accelerator} pool of {plan.name} is flex-start or queued-provisioning "
                f"capacity ({', '.join(p.name for p in pools)}), whose VMs GKE stops after at most 7 days",
                "--flex-start to serve on it anyway, or an on-demand, reservation or Spot pool of it",
            )
        pools = lasting
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
    if req.nodes > 1:
        # one pool holds every node, and its placement policy puts them close (compact) if it has one
        big = [p for p in match if p.max_nodes >= req.nodes]
        if not big:
            raise _fail(
                "--nodes",
                f"{req.nodes} nodes of {gpus} {req.accelerator} GPUs: no pool of {plan.name} grows that large",
                [f"{p.name}: {p.max_nodes}" for p in match],
            )
        return sorted(big, key=lambda p: not (p.plan.placement and p.plan.placement.compact))[0]
    return match[0]


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
            raise _fail(
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
            raise _fail(field, f"{cache} GiB of in-memory file cache leaves the pod {left} MiB", f"{mib // 2048}")
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


def _check_shape(plan: EnvironmentPlan, req: WorkloadRequest, pool: PoolNodes) -> None:
    """--slices and --nodes against the pool (lint checks the same on any file)."""
    vms = pool.slice_vms
    if req.slices < 1 or req.nodes < 1:
        raise _fail("--slices/--nodes", f"{req.slices}/{req.nodes} is out of range", "1 or more")
    if req.slices > 1:
        if vms == 1 or req.kind != "jobset":
            raise _fail("--slices", f"{req.slices}: multislice runs one JobSet over multi-host TPU slices", "1")
        pools = _slice_pools(plan, pool)
        held = sum(slices_of(p) for p in pools)
        if req.slices > held:
            raise _fail(
                "--slices",
                f"{req.slices}: {plan.name} has {held} {pool.plan.tpu_topology} slice(s)",
                f"at most {held} ({', '.join(p.name for p in pools)})",
            )
    if req.nodes > 1 and (pool.plan.kind != "gpu" or req.kind != "jobset"):
        raise _fail("--nodes", f"{req.nodes}: several nodes are a JobSet on a GPU pool", "--kind jobset on GPUs")


def _slice_pools(plan: EnvironmentPlan, pool: PoolNodes) -> list[PoolNodes]:
    """The pools whose slices a multislice JobSet on ``pool`` may take: behind a capacity ladder, the
    slices of that shape on every rung (the JobSet selects the class, W8), else the pools of its selector."""
    every = pool_nodes(plan, include_system=False)
    ladder = ladder_of_pool(plan, pool.name)
    if ladder is None:
        return slice_pools(pool, every)
    rungs = {name for rung in ladder.rungs for name in rung.pools}
    return [p for p in every if p.name in rungs and slices_of(p) > 0
            and (p.plan.chips_per_node, p.slice_vms) == (pool.plan.chips_per_node, pool.slice_vms)]  # fmt: skip


def default_kind(pool: PoolNodes) -> Kind:
    """A multi-host slice runs as one JobSet (a pod per VM, started and restarted together); else a Job."""
    return "jobset" if pool.slice_vms > 1 else "job"


def new_workload(plan: EnvironmentPlan, req: WorkloadRequest) -> list[Obj]:
    """The objects of the workload (one, today), ready for ``kubectl apply``."""
    if req.kind is not None and req.kind not in KINDS:
        raise _fail("--kind", f"{req.kind!r} is not a kind", KINDS)
    ns, team = _team(plan, req.team)
    pool = choose_pool(plan, req)
    kind: Kind = req.kind or default_kind(pool)
    req = replace(req, kind=kind)
    pcs = plan.spec.platform.priority_classes
    priority = req.priority or default_priority(plan, team, kind)
    allowed = list(team.priority_classes) or [pcs.inference.name, pcs.training.name, pcs.batch.name]
    if priority not in allowed:
        raise _fail("--priority", f"{priority!r}: team {team.name} may not use it", allowed)
    vms = pool.slice_vms
    if req.completions < 1 or req.parallelism < 1:
        raise _fail("--completions/--parallelism", f"{req.completions}/{req.parallelism} is out of range", "1 or more")
    if vms > 1 and req.kind != "jobset":
        raise _fail("--kind", f"{req.kind!r}: a {pool.plan.tpu_topology} slice has {vms} VMs, one pod each", "jobset")
    _check_shape(plan, req, pool)
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
        raise _fail(
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
