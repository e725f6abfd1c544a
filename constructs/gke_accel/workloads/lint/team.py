"""Rules that depend on the team that owns the namespace: quota per resource and per accelerator
model or generation, priority classes, and the Kueue queue label."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

from gke_accel.catalog import load_catalog
from gke_accel.workloads.lint._model import (
    GPU_RESOURCE,
    TPU_RESOURCE,
    EnvironmentPlan,
    TeamQueue,
    TeamSpec,
    accelerator_key,
    platform_manifests,
    queue_plan_of,
    quota_key,
    team_namespace,
)
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.queues import team_queue
from gke_accel.workloads.manifests import PodGroup, Workload
from gke_accel.workloads.nodes import PoolNodes
from gke_accel.workloads.quantity import parse_quantity, show

GIB = Decimal(2) ** 30


def teams_by_namespace(plan: EnvironmentPlan) -> dict[str, TeamSpec]:
    return {team_namespace(t.name, t.namespace): t for t in plan.spec.teams}


def namespace_findings(wl: Workload, teams: dict[str, TeamSpec]) -> list[Finding]:
    names = ", ".join(sorted(teams)) or "(no teams in this environment)"
    if wl.namespace is None:
        return [
            Finding(
                "namespace",
                "warning",
                "metadata.namespace",
                "is not set: the workload goes to your kubectl context's namespace; quotas not checked",
                f"set it to a team namespace: {names}",
            )
        ]
    if wl.namespace not in teams:
        return [
            Finding(
                "namespace",
                "warning",
                "metadata.namespace",
                f"{wl.namespace!r} is not a team namespace of this environment; quotas not checked",
                f"one of: {names}",
            )
        ]
    return []


@dataclass(frozen=True)
class Placed:
    group: PodGroup
    requests: dict[str, Decimal]
    pools: list[PoolNodes]


@dataclass(frozen=True)
class Enforced:
    """What the cluster enforces for one team namespace: its ResourceQuota ``compute`` (``hard``, as
    the platform writes it) and, where queues are on, its Kueue ClusterQueue."""

    hard: dict[str, Decimal]
    queue: TeamQueue | None = None
    flavor_pools: dict[str, tuple[str, ...]] = field(default_factory=dict)  # Kueue flavor -> its pools
    # the quotas scoped by priority class (model/teams/manifests.py): name -> (In or NotIn, classes, hard)
    scoped: dict[str, tuple[str, tuple[str, ...], dict[str, Decimal]]] = field(default_factory=dict)

    def quota_for(self, priority_class: str) -> tuple[str, dict[str, Decimal]]:
        """The ResourceQuota that counts pods of ``priority_class`` and its hard limits: ``compute``, or
        where the team's inference pods are counted apart, the scoped quota whose selector matches."""
        for name, (operator, classes, hard) in sorted(self.scoped.items()):
            if (priority_class in classes) == (operator == "In"):
                return name, hard
        return "compute", self.hard


def enforced_by_namespace(plan: EnvironmentPlan) -> dict[str, Enforced]:
    queues = queue_plan_of(plan)
    by_ns = {t.namespace: t for t in queues.teams} if queues is not None else {}
    flavor_pools = {f.name: f.pools for f in queues.flavors} if queues is not None else {}
    out: dict[str, Enforced] = {}
    scoped: dict[str, dict[str, tuple[str, tuple[str, ...], dict[str, Decimal]]]] = {}
    for m in platform_manifests(plan):
        meta = m.get("metadata") or {}
        if m.get("kind") != "ResourceQuota" or not str(meta.get("name", "")).startswith("compute"):
            continue
        hard = {str(k): q for k, v in (m["spec"].get("hard") or {}).items() if (q := parse_quantity(v)) is not None}
        ns = str(meta.get("namespace"))
        if meta.get("name") == "compute":
            out[ns] = Enforced(hard, by_ns.get(ns), flavor_pools)
        for e in (m["spec"].get("scopeSelector") or {}).get("matchExpressions", []):
            if e.get("scopeName") == "PriorityClass":
                scoped.setdefault(ns, {})[str(meta["name"])] = (str(e["operator"]), tuple(e.get("values", ())), hard)
    return {ns: replace(e, scoped=scoped.get(ns, {})) for ns, e in out.items()}


def _accelerator(requests: dict[str, Decimal]) -> str | None:
    return next((r for r in (TPU_RESOURCE, GPU_RESOURCE) if requests.get(r)), None)


def _kueue_findings(wl: Workload, team: TeamSpec, placed: list[Placed], enforced: Enforced) -> list[Finding]:
    """Kueue admits a workload whole, each pod set (a Job, one replicated job of a JobSet; each pod of a
    Deployment is a workload of its own, Kueue's pod integration) on one flavor,
    up to the ClusterQueue's nominal quota plus what it may borrow from the cohort per flavor; the pod
    sets of one workload may take different flavors (a multislice JobSet with a replicated job per slice
    over the rungs of a capacity ladder). A pod set that fits no flavor with what the workload's other
    pod sets left there is never admitted."""
    queue = enforced.queue
    if queue is None:
        return []
    used: dict[str, Decimal] = {}
    out = []
    for p in placed:
        res = _accelerator(p.requests)
        names = {x.name for x in p.pools}
        candidates = [f for f, pools in enforced.flavor_pools.items() if names & set(pools)]
        if res is None or not candidates:
            continue
        # a Deployment's (ReplicaSet's) pods are Kueue workloads of their own, each on its own flavor
        alone = wl.kind in ("Deployment", "ReplicaSet")
        needs = [p.requests[res]] * p.group.pods if alone else [p.requests[res] * p.group.pods]
        need = Decimal(0)
        for need in needs:
            fits = [f for f in candidates if used.get(f, Decimal(0)) + need <= queue.flavor_ceilings.get(f, 0)]
            if not fits:
                break
            used[fits[0]] = used.get(fits[0], Decimal(0)) + need  # Kueue tries the flavors in order
        else:
            continue
        best = max(candidates, key=lambda f: queue.flavor_ceilings.get(f, 0))
        ceiling, nominal = queue.flavor_ceilings.get(best, 0), queue.quota(best).nominal
        out.append(
            Finding(
                "quota",
                "error",
                wl.ref,
                f"needs {show(used.get(best, Decimal(0)) + need)} of Kueue flavor {best} at once; team {team.name}'s "
                f"ClusterQueue {queue.cluster_queue} admits at most {ceiling} there (nominal {nominal} + "
                f"{ceiling - nominal} it may borrow): Kueue never admits it",
                "fewer pods or chips, or more nominal quota or borrowing for the team",
            )
        )
        break
    return out


def quota_findings(wl: Workload, team: TeamSpec, placed: list[Placed], enforced: Enforced) -> list[Finding]:
    """Requests of all the workload's pods at once against what the cluster enforces: the team's
    ResourceQuota per resource (accelerators, cpu, memory, pods), then, with queues, Kueue's nominal +
    borrowable quota per flavor. The team's share per accelerator model (``teams[].accelerators``) is
    enforced only through Kueue; without queues exceeding it is a warning (real-engines s13, p08)."""
    catalog = load_catalog()
    totals: dict[str, Decimal] = {}
    per_accel: dict[str, Decimal] = {}  # node label value (nvidia-l4, tpu-v5-lite-podslice) -> chips
    pods = 0
    quota_name, hard = "compute", enforced.hard
    for p in placed:
        pods += p.group.pods
        # the pods' class picks the quota that counts them (no class: the global default, never inference)
        quota_name, hard = enforced.quota_for(str(p.group.spec.get("priorityClassName") or ""))
        for name, amount in p.requests.items():
            totals[name] = totals.get(name, Decimal(0)) + amount * p.group.pods
        accels = {x.plan.accelerator for x in p.pools if x.plan.kind != "system"}
        res = _accelerator(p.requests)
        if res is not None and len(accels) == 1:
            accel = accels.pop()
            per_accel[accel] = per_accel.get(accel, Decimal(0)) + p.requests[res] * p.group.pods
    totals["pods"] = Decimal(pods)
    out = []
    for res in (TPU_RESOURCE, GPU_RESOURCE, "cpu", "memory", "pods"):
        key = "pods" if res == "pods" else quota_key(res) if "/" in res else f"requests.{res}"
        have, limit = totals.get(res, Decimal(0)), hard.get(key, Decimal(0))
        if have > limit:
            unit = (lambda q: f"{show(q / GIB)}Gi") if res == "memory" else show
            message = (
                f"runs {pods} pods at once; team {team.name} may run {show(limit)} (ResourceQuota {quota_name} pods)"
                if res == "pods"
                else f"requests {unit(have)} {res} at once; team {team.name}'s quota is {key}={unit(limit)} "
                f"(ResourceQuota {quota_name}): the pods beyond it are refused"
            )
            out.append(
                Finding(
                    "quota",
                    "error",
                    wl.ref,
                    message,
                    "fewer pods or chips, or a larger quota in the environment config",
                )
            )
    if out:
        return out
    if enforced.queue is not None:
        return _kueue_findings(wl, team, placed, enforced)
    shares: dict[str, tuple[str, int]] = {}
    for accel_name, chips in team.accelerators.items():
        key2 = accelerator_key(accel_name, catalog)
        if key2 is not None:
            shares[key2[1]] = (accel_name, chips)
    for accel, amount in per_accel.items():
        name, allowed = shares.get(accel, (accel, 0))
        if amount > allowed:
            out.append(
                Finding(
                    "share",
                    "warning",
                    wl.ref,
                    f"uses {show(amount)} {name} at once; team {team.name}'s share is {allowed}: not enforced "
                    "without queues (the ResourceQuota counts every model of the resource together)",
                    f"at most {allowed}, raise teams[].accelerators.{name}, or enable queues",
                )
            )
    return out


def priority_findings(plan: EnvironmentPlan, wl: Workload, g: PodGroup, team: TeamSpec | None) -> list[Finding]:
    pcs = plan.spec.platform.priority_classes
    defined = [pcs.inference.name, pcs.training.name, pcs.batch.name]
    name = g.spec.get("priorityClassName")
    if name is not None and name not in defined and not str(name).startswith("system-"):
        return [
            Finding(
                "priority",
                "error",
                f"{g.path}.priorityClassName",
                f"{name!r} is not a priority class of this environment: the API server rejects the pod",
                f"one of {', '.join(defined)}",
            )
        ]
    effective = name or pcs.training.name  # training is the cluster's global default
    if team is not None and team.priority_classes and effective not in team.priority_classes:
        why = "" if name else f" (no priorityClassName: the default {effective!r} applies)"
        # with Kueue the priority fence (model/platform/fences.py) refuses the workload object itself at
        # creation; without it the zero-pod ResourceQuota of the class refuses each pod
        refused = (
            "the API server refuses the workload when it is created (the priority fence)"
            if team_queue(plan, team) is not None
            else "its pods are refused (the class's zero-pod ResourceQuota)"
        )
        return [
            Finding(
                "priority",
                "error",
                f"{g.path}.priorityClassName",
                f"team {team.name} may not use {effective!r}{why}: {refused}",
                f"one of {', '.join(team.priority_classes)}",
            )
        ]
    return []
