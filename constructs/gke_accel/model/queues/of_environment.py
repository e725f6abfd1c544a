"""The queue plan of a validated environment plan."""

from __future__ import annotations

from gke_accel.catalog import Catalog
from gke_accel.model.environment import EnvironmentPlan
from gke_accel.model.queues.plan import QueuePlan, plan_queues
from gke_accel.model.queues.spec import QueuesSpec


def queue_plan_of(env: EnvironmentPlan, catalog: Catalog | None = None) -> QueuePlan | None:
    """None when the environment has no ``queues:``."""
    queues: QueuesSpec | None = getattr(env.spec, "queues", None)
    return plan_queues(env.name, env.spec.teams, queues, env.pools, catalog)
