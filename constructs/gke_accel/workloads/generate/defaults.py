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
from gke_accel.workloads.ladder import ladder_of_pool
from gke_accel.workloads.nodes import PoolNodes


def default_priority(plan: EnvironmentPlan, team: TeamSpec, kind: str) -> str:
    """training (a job) or inference (a deployment), else the first of the other classes the team may use."""
    pcs = plan.spec.platform.priority_classes
    order = (
        [pcs.inference, pcs.training, pcs.batch] if kind == "deployment" else [pcs.training, pcs.batch, pcs.inference]
    )
    allowed = set(team.priority_classes) or {c.name for c in order}
    return next((c.name for c in order if c.name in allowed), order[0].name)


def kueue_ceiling(
    plan: EnvironmentPlan, team: TeamSpec, pool: PoolNodes, spread: bool = False
) -> tuple[int, int] | None:
    """(nominal, ceiling) of the team where a workload on ``pool`` may be admitted: its ClusterQueue's
    nominal quota and the most Kueue can admit for it (nominal plus what it may borrow) on the pool's
    flavor; behind a capacity ladder on the rung (flavor) that allows the most, or, for pods that pick
    their rungs alone (``spread``: a multislice JobSet's slices, a Deployment's pods, each a Kueue workload
    of its own), summed over the rungs. None without queues."""
    queues = queue_plan_of(plan)
    if queues is None:
        return None
    mine = next((t for t in queues.teams if t.team == team.name), None)
    if mine is None:
        return None
    ladder = ladder_of_pool(plan, pool.name)
    pools = {name for rung in ladder.rungs for name in rung.pools} if ladder is not None else {pool.name}
    listed = {q.flavor for q in mine.quotas}
    flavors = [f.name for f in queues.flavors if pools & set(f.pools) and f.name in listed]
    per = [(mine.quota(f).nominal, mine.flavor_ceilings.get(f, 0)) for f in flavors]
    if not per:
        return None
    if spread:
        return sum(n for n, _ in per), sum(c for _, c in per)
    return max(per, key=lambda nc: nc[1])


def check_share(
    plan: EnvironmentPlan, team: TeamSpec, pool: PoolNodes, wanted: int, flag: str, spread: bool = False
) -> None:
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
    kueue = kueue_ceiling(plan, team, pool, spread)
    if kueue is not None:
        nominal, ceiling = kueue
        ladder = ladder_of_pool(plan, pool.name)
        # one pod set takes one flavor (rung); pods admitted apart (a Deployment's, slices) spread over them
        rungs = "over the rungs" if spread else "on one rung"
        where = f"on pool {pool.name}" if ladder is None else f"{rungs} of the {ladder.class_name} ladder"
        if wanted > ceiling:
            raise ConfigError([ConfigIssue(
                flag,
                f"needs {wanted} {name} at once; team {team.name} may use {ceiling} {where} "
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
