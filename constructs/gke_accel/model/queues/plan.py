"""The queue plan of an environment: flavors, one ClusterQueue per team in one cohort, LocalQueues,
priorities and admission checks; and each team's ceiling per accelerator resource (what Kueue can
ever admit for it, borrowing included), which the team's ResourceQuota is set to.

Quota split: a team's ``accelerators[name]`` (a GPU model or TPU generation) is its nominal quota
over the flavors of that accelerator. With one flavor (the usual case) it all goes there; with
several, teams fill the flavors in order (reservation, on-demand, queued, flex-start, Spot; then by name), each
up to what is left of the flavor's capacity, so the split fits whenever the total does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.pools.node_pool import GPU_RESOURCE, TPU_RESOURCE, NodePoolPlan
from gke_accel.model.queues.flavors import Flavor, plan_flavors
from gke_accel.model.queues.spec import DEFAULT_PODS_READY_TIMEOUT_SECONDS, QueuesSpec, TeamQueueSpec
from gke_accel.model.teams.accelerators import accelerator_key
from gke_accel.model.teams.compute import BASE_CPU, BASE_MEMORY_GIB, TeamCompute, team_compute, vm_room
from gke_accel.model.teams.queue import LOCAL_QUEUE_NAME, cluster_queue_name
from gke_accel.model.teams.spec import TeamSpec

ORDER = {"reservation": 0, "on-demand": 1, "queued": 2, "flex-start": 3, "spot": 4}
RESOURCES = (TPU_RESOURCE, GPU_RESOURCE)


@dataclass(frozen=True)
class FlavorQuota:
    flavor: str
    resource: str
    nominal: int
    borrowing_limit: int | None  # None: as much as the cohort lends
    lending_limit: int | None  # None: the whole nominal quota
    # with a slice Topology every TPU flavor also holds the cpu and memory of its pods (manifests.py):
    # (millicores, MiB) of the VMs the nominal chips fill; None otherwise
    compute: tuple[int, int] | None = None


@dataclass(frozen=True)
class TeamQueue:
    team: str
    namespace: str
    cluster_queue: str
    local_queue: str
    quotas: tuple[FlavorQuota, ...]  # every flavor of the cohort (nominal 0 where the team has none)
    compute: TeamCompute  # its cpu and memory quota (model/teams/compute.py: the VMs of its ceilings)
    preempt_when_borrowing: bool
    ceilings: dict[str, int]  # per resource: nominal + most it can borrow, over all flavors
    flavor_ceilings: dict[str, int] = field(default_factory=dict)  # per flavor: nominal + most it can borrow

    @property
    def cpu(self) -> int:
        return self.compute.cpu

    @property
    def memory_gib(self) -> int:
        return self.compute.memory_gib

    def quota(self, flavor: str) -> FlavorQuota:
        return next(q for q in self.quotas if q.flavor == flavor)


@dataclass(frozen=True)
class QueuePlan:
    cohort: str
    flavors: tuple[Flavor, ...]
    teams: tuple[TeamQueue, ...]
    pods_ready_timeout_seconds: int = DEFAULT_PODS_READY_TIMEOUT_SECONDS  # Kueue's waitForPodsReady timeout
    # a fleet manager's (model/fleet): AdmissionChecks every ClusterQueue carries on all its flavors,
    # the ``multiKueue`` block of Kueue's Configuration and the feature gates the controller needs
    admission_checks: tuple[str, ...] = ()
    multikueue: Mapping[str, Any] | None = None
    feature_gates: tuple[str, ...] = ()

    @property
    def laddered(self) -> bool:
        """Some flavors are rungs of a capacity ladder (their order is the ladder's)."""
        return any(f.rank is not None for f in self.flavors)

    def flavor(self, name: str) -> Flavor:
        return next(f for f in self.flavors if f.name == name)

    @property
    def topology(self) -> str | None:
        """The Kueue Topology of the multi-host TPU flavors (model/queues/topology.py), if any."""
        return next((f.topology for f in self.flavors if f.topology), None)

    @property
    def checked_flavors(self) -> tuple[Flavor, ...]:
        """Flavors whose nodes come through GKE ProvisioningRequests (queued provisioning)."""
        return tuple(f for f in self.flavors if f.provisioning == "queued")


def flavors_of(key: tuple[str, str], flavors: Sequence[Flavor]) -> list[Flavor]:
    """The flavors of one accelerator, in fill order."""
    members = [f for f in flavors if (f.resource, f.accelerator) == key]
    return sorted(members, key=_fill_order)


def _fill_order(f: Flavor) -> tuple[int, int, str]:
    """A capacity ladder's rungs first, in the ladder's order (model/capacity); then ORDER, then name."""
    if f.rank is not None:
        return (0, f.rank, f.name)
    return (1, ORDER.get(f.provisioning, 9), f.name)


def rank_flavors(flavors: Sequence[Flavor], ranks: Mapping[str, int]) -> tuple[Flavor, ...]:
    """``flavors`` with their ladder ranks; a ladder's flavors take the place of its first one, in rung
    order (what the ClusterQueue lists and Kueue tries in turn); the others keep their order."""
    if not ranks:
        return tuple(flavors)
    ranked = [replace(f, rank=ranks[f.name]) if f.name in ranks else f for f in flavors]
    out: list[Flavor] = []
    for f in ranked:
        if f in out:
            continue
        if f.rank is None:
            out.append(f)
        else:
            key = (f.resource, f.accelerator)
            group = [g for g in ranked if g.rank is not None and (g.resource, g.accelerator) == key]
            out += sorted(group, key=_fill_order)
    return tuple(out)


def split_nominal(teams: Sequence[TeamSpec], flavors: Sequence[Flavor], catalog: Catalog) -> dict[tuple[str, str], int]:
    """(team, flavor) -> nominal chips, filling flavors in order across teams; a remainder that
    fits nowhere goes to the last flavor (and the capacity rule reports it)."""
    left = {f.name: f.chips_max for f in flavors}
    nominal: dict[tuple[str, str], int] = {}
    for team in teams:
        for name, amount in team.accelerators.items():
            key = accelerator_key(name, catalog)
            group = flavors_of(key, flavors) if key else []
            if not group or amount <= 0:
                continue
            rest = amount
            for flavor in group:
                take = min(rest, left[flavor.name]) if flavor is not group[-1] else rest
                if take > 0:
                    nominal[(team.name, flavor.name)] = nominal.get((team.name, flavor.name), 0) + take
                    left[flavor.name] -= take
                    rest -= take
    return nominal


def _limit(limits: dict[str, int], flavor: Flavor, catalog: Catalog) -> int | None:
    for name, value in limits.items():
        if accelerator_key(name, catalog) == (flavor.resource, flavor.accelerator):
            return value
    return None


def _with_compute(q: FlavorQuota, flavor: Flavor, pools: Sequence[NodePoolPlan]) -> FlavorQuota:
    """A TPU flavor's quota with the cpu and memory of the VMs its nominal chips fill."""
    if q.resource != TPU_RESOURCE:
        return q
    pool = next(p for p in pools if p.name == flavor.pools[0])
    return replace(q, compute=vm_room(pool, q.nominal) if q.nominal else (0, 0))


def plan_queues(
    environment: str,
    teams: Sequence[TeamSpec],
    queues: QueuesSpec | None,
    pools: Sequence[NodePoolPlan],
    catalog: Catalog | None = None,
    ranks: Mapping[str, int] | None = None,
    base: tuple[int, int] = (BASE_CPU, BASE_MEMORY_GIB),
) -> QueuePlan | None:
    """The queue plan of a validated environment, or None when it does not use Kueue. ``ranks``: the
    capacity ladders' flavor order (``model.capacity.ladder.flavor_ranks``)."""
    if queues is None or not queues.enabled:
        return None
    catalog = catalog or load_catalog()
    flavors = rank_flavors(plan_flavors(pools), ranks or {})
    nominal = split_nominal(teams, flavors, catalog)
    per_team: list[tuple[TeamSpec, TeamQueueSpec, list[FlavorQuota]]] = []
    for team in teams:
        choices = queues.teams.get(team.name, TeamQueueSpec())
        quotas = [
            FlavorQuota(
                flavor=f.name,
                resource=f.resource,
                nominal=nominal.get((team.name, f.name), 0),
                borrowing_limit=_limit(choices.borrowing_limit, f, catalog),
                lending_limit=_limit(choices.lending_limit, f, catalog),
            )
            for f in flavors
        ]
        per_team.append((team, choices, quotas))
    by_name = {f.name: f for f in flavors}
    if any(f.topology for f in flavors):
        per_team = [(t, c, [_with_compute(q, by_name[q.flavor], pools) for q in qs]) for t, c, qs in per_team]
    lendable = {
        (t.name, q.flavor): (q.nominal if q.lending_limit is None else min(q.lending_limit, q.nominal))
        for t, _, quotas in per_team
        for q in quotas
    }
    result = []
    for team, choices, quotas in per_team:
        ceilings = dict.fromkeys(RESOURCES, 0)
        per_flavor: dict[str, int] = {}
        per_accelerator: dict[tuple[str, str], int] = {}
        for q in quotas:
            others = sum(v for (name, fl), v in lendable.items() if fl == q.flavor and name != team.name)
            can_borrow = others if q.borrowing_limit is None else min(q.borrowing_limit, others)
            ceilings[q.resource] += q.nominal + can_borrow
            per_flavor[q.flavor] = q.nominal + can_borrow
            key = (q.resource, by_name[q.flavor].accelerator)
            per_accelerator[key] = per_accelerator.get(key, 0) + q.nominal + can_borrow
        result.append(
            TeamQueue(
                team=team.name,
                namespace=team.namespace or team.name,
                cluster_queue=cluster_queue_name(team.name),
                local_queue=LOCAL_QUEUE_NAME,
                quotas=tuple(quotas),
                compute=team_compute(team, per_accelerator, pools, base),
                preempt_when_borrowing=choices.preempt_when_borrowing,
                ceilings=ceilings,
                flavor_ceilings=per_flavor,
            )
        )
    return QueuePlan(
        cohort=queues.cohort or environment,
        flavors=flavors,
        teams=tuple(result),
        pods_ready_timeout_seconds=queues.pods_ready_timeout_seconds,
    )
