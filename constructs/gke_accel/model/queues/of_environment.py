"""The queue plan of a validated environment plan: the one the environment root planned and keeps in
``EnvironmentPlan.queues`` (lint, verify and the tests read it here; nothing plans it again)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.queues.install import jobset_reasons
from gke_accel.model.queues.plan import QueuePlan


class QueuedPlan(Protocol):
    """What these functions read of an environment plan (``EnvironmentPlan`` has it)."""

    @property
    def pools(self) -> Sequence[NodePoolPlan]: ...

    @property
    def queues(self) -> QueuePlan | None: ...


def queue_plan_of(env: QueuedPlan) -> QueuePlan | None:
    """None when the environment has no ``queues:``."""
    return env.queues


def jobset_reasons_of(env: QueuedPlan) -> tuple[str, ...]:
    """Why ``env`` installs JobSet (empty: it does not); see ``install.jobset_reasons``."""
    return jobset_reasons(env.pools, queue_plan_of(env))


def slice_topology_of(env: QueuedPlan, pool: str) -> str | None:
    """The Kueue Topology whose flavor holds ``pool`` (a multi-host TPU slice pool), if any: a JobSet there
    asks for its slices at the node-pool level (model/queues/topology.py)."""
    queues = queue_plan_of(env)
    if queues is None:
        return None
    return next((f.topology for f in queues.flavors if f.topology and pool in f.pools), None)
