"""Rules that depend on the team that owns the namespace: quota per resource and per accelerator
model or generation, priority classes, and the Kueue queue label."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from gke_accel.catalog import load_catalog
from gke_accel.workloads._model import EnvironmentPlan, TeamSpec, accelerator_key, quota_key, team_namespace
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import PodGroup, Workload
from gke_accel.workloads.nodes import PoolNodes
from gke_accel.workloads.quantity import show

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


def quota_findings(wl: Workload, team: TeamSpec, placed: list[Placed]) -> list[Finding]:
    """Requests of all the workload's pods at once against the team's ResourceQuota (per resource)
    and its share per accelerator model or TPU generation (``teams[].accelerators``)."""
    catalog = load_catalog()
    totals: dict[str, Decimal] = {}
    per_accel: dict[str, Decimal] = {}  # node label value (nvidia-l4, tpu-v5-lite-podslice) -> chips
    pods = 0
    for p in placed:
        pods += p.group.pods
        for name, amount in p.requests.items():
            totals[name] = totals.get(name, Decimal(0)) + amount * p.group.pods
        accels = {x.plan.accelerator for x in p.pools if x.plan.kind != "system"}
        res = "google.com/tpu" if p.requests.get("google.com/tpu") else "nvidia.com/gpu"
        if p.requests.get(res) and len(accels) == 1:
            accel = accels.pop()
            per_accel[accel] = per_accel.get(accel, Decimal(0)) + p.requests[res] * p.group.pods
    quota: dict[str, Decimal] = {}
    shares: dict[str, tuple[str, int]] = {}
    for accel_name, chips in team.accelerators.items():
        key = accelerator_key(accel_name, catalog)
        if key is not None:
            quota[key[0]] = quota.get(key[0], Decimal(0)) + chips
            shares[key[1]] = (accel_name, chips)
    out = []
    for res in ("google.com/tpu", "nvidia.com/gpu"):
        have = totals.get(res, Decimal(0))
        if have > quota.get(res, Decimal(0)):
            limit = show(quota.get(res, Decimal(0)))
            out.append(
                Finding(
                    "quota",
                    "error",
                    wl.ref,
                    f"requests {show(have)} {res} at once; team {team.name}'s quota is "
                    f"{quota_key(res)}={limit}: the pods beyond it are refused",
                    "fewer pods or chips, or a larger quota in the environment config",
                )
            )
    if not out:
        for accel, amount in per_accel.items():
            name, allowed = shares.get(accel, (accel, 0))
            if amount > allowed:
                out.append(
                    Finding(
                        "quota",
                        "error",
                        wl.ref,
                        f"uses {show(amount)} {name} at once; team {team.name} may use {allowed} "
                        "(its share per accelerator; Kubernetes enforces only the total per resource)",
                        f"at most {allowed}, or raise teams[].accelerators.{name}",
                    )
                )
    memory_limit = Decimal(team.memory_gib) * GIB
    if totals.get("cpu", Decimal(0)) > team.cpu:
        out.append(
            Finding(
                "quota",
                "error",
                wl.ref,
                f"requests {show(totals['cpu'])} cpu at once; team {team.name}'s quota is requests.cpu={team.cpu}",
            )
        )
    if totals.get("memory", Decimal(0)) > memory_limit:
        out.append(
            Finding(
                "quota",
                "error",
                wl.ref,
                f"requests {show(totals['memory'] / GIB)}Gi memory at once; team {team.name}'s quota is "
                f"requests.memory={team.memory_gib}Gi",
            )
        )
    if pods > team.pods:
        out.append(Finding("quota", "error", wl.ref, f"runs {pods} pods at once; team {team.name} may run {team.pods}"))
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
        return [
            Finding(
                "priority",
                "error",
                f"{g.path}.priorityClassName",
                f"team {team.name} may not use {effective!r}{why}: its pods are refused",
                f"one of {', '.join(team.priority_classes)}",
            )
        ]
    return []
