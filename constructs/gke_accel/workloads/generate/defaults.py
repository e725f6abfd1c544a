"""Defaults of ``workload new`` that fit the team: a priority class it may use, cpu and memory within
its quota, and a refusal (instead of a workload ``lint`` rejects) when it may not use the pool's
accelerator: without queues, no share of it; with queues, more than Kueue can ever admit for the team
(its nominal quota plus what it may borrow from the cohort)."""

from __future__ import annotations

from gke_accel.catalog import load_catalog
from gke_accel.workloads.generate._model import (
    ConfigError,
    ConfigIssue,
    EnvironmentPlan,
    TeamSpec,
    accelerator_key,
    accelerator_name,
    queue_plan_of,
)
from gke_accel.workloads.nodes import PoolNodes


def default_priority(plan: EnvironmentPlan, team: TeamSpec, kind: str) -> str:
    """training (a job) or inference (a deployment), else the first of the other classes the team may use."""
    pcs = plan.spec.platform.priority_classes
    order = (
        [pcs.inference, pcs.training, pcs.batch] if kind == "deployment" else [pcs.training, pcs.batch, pcs.inference]
    )
    allowed = set(team.priority_classes) or {c.name for c in order}
    return next((c.name for c in order if c.name in allowed), order[0].name)


def kueue_ceiling(plan: EnvironmentPlan, team: TeamSpec, pool: PoolNodes) -> tuple[int, int] | None:
    """(nominal, ceiling) of the team on the Kueue flavor of ``pool``: what its ClusterQueue holds there
    and the most Kueue can admit for it there (nominal plus what it may borrow); None without queues."""
    queues = queue_plan_of(plan)
    if queues is None:
        return None
    mine = next((t for t in queues.teams if t.team == team.name), None)
    flavors = [f.name for f in queues.flavors if pool.name in f.pools]
    if mine is None or not flavors:
        return None
    nominal = sum(mine.quota(f).nominal for f in flavors if any(q.flavor == f for q in mine.quotas))
    return nominal, sum(mine.flavor_ceilings.get(f, 0) for f in flavors)


def check_share(plan: EnvironmentPlan, team: TeamSpec, pool: PoolNodes, wanted: int, flag: str) -> None:
    """The team may use the pool's accelerator. With queues: up to its Kueue ceiling on the pool's flavor
    (nominal + what it may borrow; W7: a team with no nominal L4 may still borrow the cohort's idle ones),
    beyond which Kueue never admits the workload. Without queues: it has a share (``teams[].accelerators``;
    with none its ResourceQuota for it is 0); above a non-zero share it is only warned about."""
    catalog = load_catalog()
    share = {}
    for name, chips in team.accelerators.items():
        key = accelerator_key(name, catalog)
        if key is not None:
            share[key[1]] = (name, chips)
    name, allowed = share.get(pool.plan.accelerator, (accelerator_name(pool.plan.accelerator, catalog), 0))
    kueue = kueue_ceiling(plan, team, pool)
    if kueue is not None:
        nominal, ceiling = kueue
        if wanted > ceiling:
            raise ConfigError([ConfigIssue(
                flag,
                f"needs {wanted} {name} at once; team {team.name} may use {ceiling} on pool {pool.name} "
                f"(nominal {nominal} + {ceiling - nominal} it may borrow): Kueue never admits more",
                f"at most {ceiling}, or a larger share or borrowing limit in the environment config",
            )])  # fmt: skip
        return
    if wanted > 0 and allowed == 0:
        has = ", ".join(f"{n}: {c}" for n, c in team.accelerators.items() if c) or "none"
        issue = ConfigIssue(
            flag,
            f"needs {wanted} {name} at once; team {team.name} may use {allowed} (teams[].accelerators.{name})",
            f"an accelerator of the team's quota ({has}), or a larger share in the environment config",
        )
        raise ConfigError([issue])
