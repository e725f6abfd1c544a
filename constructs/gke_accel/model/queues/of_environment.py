"""The queue plan of a validated environment plan."""

from __future__ import annotations

from gke_accel.catalog import Catalog
from gke_accel.model.capacity.ladder import flavor_ranks
from gke_accel.model.capacity.of_environment import ladders_of
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.queues.install import jobset_reasons
from gke_accel.model.queues.plan import QueuePlan, plan_queues


def queue_plan_of(env: EnvironmentPlan, catalog: Catalog | None = None) -> QueuePlan | None:
    """None when the environment has no ``queues:``."""
    ranks = flavor_ranks(ladders_of(env))
    return plan_queues(env.name, env.spec.teams, env.spec.queues, env.pools, catalog, ranks=ranks)


def jobset_reasons_of(env: EnvironmentPlan, catalog: Catalog | None = None) -> tuple[str, ...]:
    """Why ``env`` installs JobSet (empty: it does not); see ``install.jobset_reasons``."""
    return jobset_reasons(env.pools, queue_plan_of(env, catalog))
