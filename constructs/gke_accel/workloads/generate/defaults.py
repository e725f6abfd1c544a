"""Defaults of ``workload new`` that fit the team: a priority class it may use, cpu and memory within
its quota, and a refusal (instead of a workload ``lint`` rejects) when it has no share of the pool's
accelerator."""

from __future__ import annotations

from gke_accel.catalog import load_catalog
from gke_accel.workloads.generate._model import ConfigError, ConfigIssue, EnvironmentPlan, TeamSpec, accelerator_key
from gke_accel.workloads.nodes import PoolNodes


def default_priority(plan: EnvironmentPlan, team: TeamSpec, kind: str) -> str:
    """training (a job) or inference (a deployment), else the first of the other classes the team may use."""
    pcs = plan.spec.platform.priority_classes
    order = (
        [pcs.inference, pcs.training, pcs.batch] if kind == "deployment" else [pcs.training, pcs.batch, pcs.inference]
    )
    allowed = set(team.priority_classes) or {c.name for c in order}
    return next((c.name for c in order if c.name in allowed), order[0].name)


def check_share(team: TeamSpec, pool: PoolNodes, wanted: int, flag: str) -> None:
    """The team has a share of the pool's accelerator (``teams[].accelerators``): with none, its
    ResourceQuota (and Kueue nominal quota) for it is 0 and lint would reject the workload. Above a
    non-zero share the workload may still borrow (Kueue) or is only warned about (no queues)."""
    catalog = load_catalog()
    share = {}
    for name, chips in team.accelerators.items():
        key = accelerator_key(name, catalog)
        if key is not None:
            share[key[1]] = (name, chips)
    name, allowed = share.get(pool.plan.accelerator, (pool.plan.tpu_generation or pool.plan.accelerator, 0))
    if wanted > 0 and allowed == 0:
        has = ", ".join(f"{n}: {c}" for n, c in team.accelerators.items() if c) or "none"
        issue = ConfigIssue(
            flag,
            f"needs {wanted} {name} at once; team {team.name} may use {allowed} (teams[].accelerators.{name})",
            f"an accelerator of the team's quota ({has}), or a larger share in the environment config",
        )
        raise ConfigError([issue])
