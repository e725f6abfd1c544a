"""The capability registry: every capability the environment root checks and plans, each behind the
same small interface (as Kueue registers its job integrations), in one list.

A capability gets the environment's spec, the derived pools, the teams and the capacity ladders
(planned once by the root), never the environment's plan: the root (``load.py``) runs every
``check`` (all issues at once, in this order), then every ``plan``, and keeps the results in
``EnvironmentPlan``. Each entry adapts the root's spec to its
capability's own functions, so the capability packages do not import this one
(``tests/model/test_import_graph.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Protocol

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.capacity.ladder import LadderPlan, flavor_ranks
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.observability.alerts import AlertPlan, alerts_for
from gke_accel.model.observability.quotas import QuotaPlan, quotas_for
from gke_accel.model.observability.rules import check_observability
from gke_accel.model.observability.site import Site
from gke_accel.model.platform.reserved import platform_namespaces
from gke_accel.model.platform.rules import check_platform
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.queues.install import controller_namespaces
from gke_accel.model.queues.plan import QueuePlan, plan_queues
from gke_accel.model.queues.rules import check_queues
from gke_accel.model.security.rules import check_security
from gke_accel.model.storage.bucket import check_bucket_options
from gke_accel.model.storage.restart import check_restart
from gke_accel.model.storage.weights import check_weights
from gke_accel.model.teams.compute import cpu_base
from gke_accel.model.teams.plan import TeamPlan


@dataclass(frozen=True)
class Planned:
    """What capabilities contribute to ``EnvironmentPlan``; each field is one capability's."""

    queues: QueuePlan | None = None
    alerts: tuple[AlertPlan, ...] = ()
    quotas: QuotaPlan = field(default_factory=QuotaPlan)


@dataclass(frozen=True)
class Derived:
    """What the root derived before the capabilities plan: the pools (ladders and lifecycle applied),
    the teams, the capacity ladders (planned once) and the catalog."""

    pools: Sequence[NodePoolPlan]
    teams: Sequence[TeamPlan]
    ladders: Sequence[LadderPlan]
    catalog: Catalog


class Capability(Protocol):
    name: str

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        """Add an issue for every mistake in the capability's part of ``spec``; return its warnings.
        ``pools_complete``: no pool had a mistake (cross-checks over all pools are meaningful)."""
        ...

    def plan(self, spec: EnvironmentSpec, derived: Derived) -> Planned:
        """What the capability derives from a valid spec and what the root derived (``Planned()`` for nothing)."""
        ...


def site(spec: EnvironmentSpec) -> Site:
    return Site(spec.environment, spec.project_id, spec.region, spec.cluster.name, spec.cluster.location)


class _NothingPlanned:
    """A capability whose objects are rendered on demand from the spec and the teams."""

    def plan(self, spec: EnvironmentSpec, derived: Derived) -> Planned:
        return Planned()


class _Platform(_NothingPlanned):
    name = "platform"  # teams, quotas, priority classes, checkpoints, driver installer

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        # the namespaces every capability's controllers run in: no team may own one
        controllers = {**controller_namespaces(), **platform_namespaces(load_catalog())}
        # a fleet manager's team quotas are checked against its workers' capacity (model/fleet), not its own pools
        complete = pools_complete and spec.fleet is None
        return tuple(check_platform(spec, pools, issues, controllers=controllers, pools_complete=complete))

    # plans nothing: its objects are the teams' and platform_manifests', rendered on demand


class _Security(_NothingPlanned):
    name = "security"

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        check_security(
            spec.cluster, production=spec.production, region=spec.region, backend_type=spec.backend.type, issues=issues
        )
        return ()


class _Observability:
    name = "observability"

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        check_observability(spec.monitoring, spec.budget, quota_preferences=spec.quota_preferences, issues=issues)
        return ()

    def plan(self, spec: EnvironmentSpec, derived: Derived) -> Planned:
        pools = derived.pools
        return Planned(alerts=alerts_for(site(spec), spec.monitoring, pools), quotas=quotas_for(spec.region, pools))


class _Queues:
    name = "queues"

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        # a fleet manager's queues are planned from its workers (model/fleet), not from its own pools
        check_queues(spec, spec.queues, () if spec.fleet is not None else pools, issues)
        return ()

    def plan(self, spec: EnvironmentSpec, derived: Derived) -> Planned:
        ranks = flavor_ranks(derived.ladders)  # the capacity ladders' order
        teams = [t.spec for t in derived.teams]
        base = cpu_base(spec.cpu_pools, len(spec.teams), derived.catalog)  # each team's CPU-only cpu/memory
        queues = plan_queues(
            spec.environment, teams, spec.queues, derived.pools, derived.catalog, ranks=ranks, base=base
        )
        return Planned(queues=queues)


class _Storage(_NothingPlanned):
    name = "storage"  # checkpoint bucket options, fast restarts, model weights (model/storage)

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        check_bucket_options(spec.platform.checkpoints, spec.region, issues)
        check_restart(spec, issues)
        check_weights(spec, issues)
        return ()  # plans nothing: its objects are rendered by the constructs and the workload tools


CAPABILITIES: tuple[Capability, ...] = (_Platform(), _Security(), _Observability(), _Queues(), _Storage())


def check_all(
    spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
) -> tuple[str, ...]:
    """Every capability's check, in registry order; their warnings."""
    return tuple(w for c in CAPABILITIES for w in c.check(spec, pools, issues, pools_complete=pools_complete))


def plan_all(
    spec: EnvironmentSpec,
    pools: Sequence[NodePoolPlan],
    teams: Sequence[TeamPlan],
    catalog: Catalog,
    ladders: Sequence[LadderPlan] = (),
) -> Planned:
    """Every capability's plan, merged (a field set by two capabilities is a programming error)."""
    merged, empty = Planned(), Planned()
    owner: dict[str, str] = {}
    derived = Derived(pools=pools, teams=teams, ladders=ladders, catalog=catalog)
    for capability in CAPABILITIES:
        part = capability.plan(spec, derived)
        changed = {
            f.name: getattr(part, f.name) for f in fields(Planned) if getattr(part, f.name) != getattr(empty, f.name)
        }
        for key in changed:
            assert key not in owner, f"{key} planned by both {owner[key]} and {capability.name}"
            owner[key] = capability.name
        merged = replace(merged, **changed)
    return merged
