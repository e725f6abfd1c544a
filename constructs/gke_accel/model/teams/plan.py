"""A team as one unit: ``TeamSpec`` -> ``TeamPlan``, everything the team owns in the environment.

Its namespace and Pod Security level, its quota ceilings, the LimitRange defaults, the Role its
Google group is bound to, the default-deny NetworkPolicy, the Kubernetes service account its
workloads run as (and the Google service account behind it), its checkpoint prefix, the priority
classes it may use, and its queue (the LocalQueue and its share of the cohort, when queues are on).
``model/teams/manifests.py`` renders it; platform and queues read it (neither imports the other).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.pools.allocatable import GCSFUSE_SIDECAR_CPU_MILLIS, GCSFUSE_SIDECAR_MEMORY_MIB
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.teams.accelerators import per_resource, quota_key
from gke_accel.model.teams.compute import BASE_CPU, BASE_MEMORY_GIB, TeamCompute, nominal_chips, team_compute
from gke_accel.model.teams.ingress import ingress_peers
from gke_accel.model.teams.queue import TeamQueueShare
from gke_accel.model.teams.spec import PodSecurityLevel, PriorityClassesSpec, TeamSpec
from gke_accel.model.teams.tenancy import pod_security_labels, team_role_rules

WORKLOAD_KSA = "workload"


def team_service_account_id(team: str, environment: str) -> str:
    """The Google service account a team's workloads run as (through Workload Identity)."""
    return f"{team}-{environment}-wi"


def team_namespace(team_name: str, namespace: str | None) -> str:
    return namespace or team_name


def gib_quantity(gib: int) -> str:
    """``gib`` GiB as a Kubernetes quantity in the canonical form the API server stores: the largest
    binary suffix that keeps the number whole (4096 GiB is written back as ``4Ti``; writing ``4096Gi``
    would show as a change on every apply and plan)."""
    if gib == 0:
        return "0"
    value, suffix = gib, "Gi"
    for bigger in ("Ti", "Pi", "Ei"):
        if value % 1024:
            break
        value, suffix = value // 1024, bigger
    return f"{value}{suffix}"


@dataclass(frozen=True)
class TeamPlan:
    """Everything one team owns (see the module docstring)."""

    spec: TeamSpec
    namespace: str
    pod_security: PodSecurityLevel
    pod_security_labels: dict[str, str]
    quota: dict[str, str]  # the ResourceQuota "compute": cpu, memory, pods and accelerator ceilings
    compute: TeamCompute  # its cpu and memory quota, as set or derived (model/teams/compute.py)
    priority_classes: tuple[str, ...]  # the classes its workloads may use (all defined ones by default)
    fenced_classes: tuple[str, ...]  # non-empty: pods of any other class get a zero-pod quota
    limit_range: dict[str, Any]  # the container defaults of the LimitRange "defaults"
    role_rules: list[dict[str, Any]]
    google_group: str  # bound to the team Role
    service_account: str  # the Kubernetes service account its workloads run as
    gcp_service_account: str  # the Google service account behind it (Workload Identity)
    checkpoint_prefix: str | None  # the only part of the checkpoint bucket it may use; None: no bucket
    queue: TeamQueueShare | None = None  # its LocalQueue and share of the cohort; None without queues
    labels: dict[str, str] = field(default_factory=dict)  # of its namespace, besides Pod Security
    ingress_from: tuple[dict[str, Any], ...] = ()  # NetworkPolicy peers besides its own namespace (ingress.py)
    inference_class: str = "inference"  # the platform's top PriorityClass (its name in the environment)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def inference_quota(self) -> bool:
        """Whether the team's inference pods get a ResourceQuota of their own (``compute-inference``,
        the same ceilings) and ``compute`` counts every other class: with Kueue, when the team may use
        inference and another class. Pod-based workloads (Deployments, StatefulSets, Pods) create their
        pods before Kueue admits them (gated); under one quota, training Kueue admitted up to the
        ceiling leaves no room for those pods, so Kueue never sees them and never preempts (W1)."""
        return (
            self.queue is not None
            and self.inference_class in self.priority_classes
            and (len(self.priority_classes) > 1)
        )


def _quota(
    team: TeamSpec, compute: TeamCompute, queue: TeamQueueShare | None, checkpoints: bool, catalog: Catalog
) -> dict[str, str]:
    hard = {
        "requests.cpu": str(compute.cpu),
        "requests.memory": gib_quantity(compute.memory_gib),
        "pods": str(team.pods),
    }
    # With Kueue, the ceiling is what Kueue can admit for the team, borrowing included (docs/queues.md).
    ceilings = queue.ceilings if queue is not None else None
    hard |= {quota_key(r): str(n) for r, n in (ceilings or per_resource(team, catalog)).items()}
    if ceilings is not None and checkpoints:
        # Kueue admits by the pod templates; GKE then injects the GCS FUSE sidecar into each pod that
        # mounts the bucket, and this quota counts it: room for one sidecar per accelerator pod Kueue
        # can admit, so an admitted pod is never refused here (model/pools/allocatable.py).
        pods = min(team.pods, sum(ceilings.values()))
        millis = compute.cpu * 1000 + pods * GCSFUSE_SIDECAR_CPU_MILLIS
        mib = compute.memory_gib * 1024 + pods * GCSFUSE_SIDECAR_MEMORY_MIB
        # the API server's canonical form, so what is stored reads as declared
        hard["requests.cpu"] = str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"
        hard["requests.memory"] = f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"
    return hard


# cpu and memory only. No extended resource may appear in a LimitRange (docs/platform.md): Kueue
# counts a defaulted `nvidia.com/gpu: 0` and injects that flavor's node labels, and GKE's
# ExtendedResourceToleration tolerates the taint of every resource a container *names*, so a
# zero default lets CPU pods onto accelerator nodes; a bare `max` is defaulted into `default`.
# Accelerators per pod are capped by the ResourceQuota and, with queues, by Kueue.
def _limit_range() -> dict[str, Any]:
    return {
        "type": "Container",
        "default": {"cpu": "1", "memory": "2Gi"},
        "defaultRequest": {"cpu": "250m", "memory": "512Mi"},
    }


def plan_team(
    team: TeamSpec,
    *,
    environment: str,
    project_id: str,
    kubernetes_version: str,
    classes: PriorityClassesSpec,
    checkpoints: bool,
    pools: Sequence[NodePoolPlan],
    queue: TeamQueueShare | None = None,
    catalog: Catalog | None = None,
    base: tuple[int, int] = (BASE_CPU, BASE_MEMORY_GIB),
) -> TeamPlan:
    """One team's plan. ``queue``: its share from ``model/queues`` (None without queues);
    ``checkpoints``: whether the environment has a checkpoint bucket (its GCS FUSE sidecars count);
    ``pools``: the environment's pools, whose VMs a derived cpu/memory quota makes room for."""
    catalog = catalog or load_catalog()
    compute = queue.compute if queue is not None else team_compute(team, nominal_chips(team, catalog), pools, base)
    every = (classes.inference.name, classes.training.name, classes.batch.name)
    listed = tuple(team.priority_classes)
    gsa = f"{team_service_account_id(team.name, environment)}@{project_id}.iam.gserviceaccount.com"
    return TeamPlan(
        spec=team,
        namespace=team_namespace(team.name, team.namespace),
        pod_security=team.pod_security,
        pod_security_labels=pod_security_labels(team, kubernetes_version),
        quota=_quota(team, compute, queue, checkpoints, catalog),
        compute=compute,
        priority_classes=listed or every,
        fenced_classes=listed if listed and set(listed) != set(every) else (),
        limit_range=_limit_range(),
        role_rules=team_role_rules(),
        google_group=team.google_group,
        service_account=WORKLOAD_KSA,
        gcp_service_account=gsa,
        checkpoint_prefix=f"{team.name}/" if checkpoints else None,
        queue=queue,
        labels={"team": team.name},
        inference_class=classes.inference.name,
    )


def plan_teams(
    teams: Sequence[TeamSpec],
    *,
    environment: str,
    project_id: str,
    kubernetes_version: str,
    classes: PriorityClassesSpec,
    checkpoints: bool,
    pools: Sequence[NodePoolPlan],
    queues: Mapping[str, TeamQueueShare] | None = None,
    catalog: Catalog | None = None,
    base: tuple[int, int] = (BASE_CPU, BASE_MEMORY_GIB),
) -> tuple[TeamPlan, ...]:
    """Every team's plan, in config order; ``queues``: team name -> its share (None: no queues);
    ``base``: each team's CPU-only cpu/memory (``compute.cpu_base``)."""
    catalog = catalog or load_catalog()
    namespaces = {t.name: team_namespace(t.name, t.namespace) for t in teams}
    planned = (
        plan_team(
            t,
            environment=environment,
            project_id=project_id,
            kubernetes_version=kubernetes_version,
            classes=classes,
            checkpoints=checkpoints,
            queue=(queues or {}).get(t.name),
            catalog=catalog,
            pools=pools,
            base=base,
        )
        for t in teams
    )
    return tuple(replace(p, ingress_from=ingress_peers(p.spec.ingress_from, namespaces)) for p in planned)


def with_queues(
    teams: Sequence[TeamPlan], shares: Mapping[str, TeamQueueShare] | None, catalog: Catalog | None = None
) -> tuple[TeamPlan, ...]:
    """The teams with their queue shares (from ``model/queues``), their quota ceilings following."""
    if shares is None:
        return tuple(teams)
    catalog = catalog or load_catalog()
    out = []
    for team in teams:
        queue = shares.get(team.name)
        compute = queue.compute if queue is not None else team.compute
        quota = _quota(team.spec, compute, queue, team.checkpoint_prefix is not None, catalog)
        out.append(replace(team, queue=queue, quota=quota, compute=compute))
    return tuple(out)
