"""The queue plan of a validated environment plan (the environment root also keeps it in
``EnvironmentPlan.queues``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import CpuPoolSpec
from gke_accel.model.queues.install import jobset_reasons
from gke_accel.model.queues.plan import QueuePlan, plan_queues
from gke_accel.model.queues.spec import QueuesSpec
from gke_accel.model.teams.compute import cpu_base
from gke_accel.model.teams.spec import TeamSpec


class _Spec(Protocol):
    @property
    def teams(self) -> Sequence[TeamSpec]: ...

    @property
    def queues(self) -> QueuesSpec | None: ...

    @property
    def cpu_pools(self) -> Sequence[CpuPoolSpec]: ...


class QueuedPlan(Protocol):
    """What these functions read of an environment plan (``EnvironmentPlan`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> _Spec: ...

    @property
    def pools(self) -> Sequence[NodePoolPlan]: ...

    @property
    def flavor_ranks(self) -> Mapping[str, int]: ...  # flavor -> its rung in a capacity ladder


def queue_plan_of(env: QueuedPlan, catalog: Catalog | None = None) -> QueuePlan | None:
    """None when the environment has no ``queues:``."""
    base = cpu_base(env.spec.cpu_pools, len(env.spec.teams), catalog or load_catalog())
    return plan_queues(
        env.name, env.spec.teams, env.spec.queues, env.pools, catalog, ranks=dict(env.flavor_ranks), base=base
    )


def jobset_reasons_of(env: QueuedPlan, catalog: Catalog | None = None) -> tuple[str, ...]:
    """Why ``env`` installs JobSet (empty: it does not); see ``install.jobset_reasons``."""
    return jobset_reasons(env.pools, queue_plan_of(env, catalog))
