"""The queue naming contract that workloads, templates and lint rely on: the names are a team's
(``model/teams/queue.py``); whether an environment queues at all is read from its ``queues:``.

A job reaches its team's share by carrying the label ``kueue.x-k8s.io/queue-name`` with the name of
the LocalQueue in its namespace; ``kueue.x-k8s.io/priority-class`` picks a WorkloadPriorityClass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gke_accel.model.queues.spec import QueuesSpec
from gke_accel.model.teams.queue import (
    LOCAL_QUEUE_NAME,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    cluster_queue_name,
)
from gke_accel.model.teams.spec import TeamSpec


class QueuedSpec(Protocol):
    """What these functions read of an environment's spec (``EnvironmentSpec`` has both)."""

    @property
    def queues(self) -> QueuesSpec | None: ...

    @property
    def teams(self) -> Sequence[TeamSpec]: ...


def uses_kueue(spec: QueuedSpec) -> bool:
    """Whether an environment shares accelerators through Kueue."""
    return spec.queues is not None and spec.queues.enabled


def team_local_queue(spec: QueuedSpec, team_name: str) -> tuple[str, str] | None:
    """(namespace, LocalQueue name) a team's jobs must name, or None when the environment has no
    Kueue or no such team."""
    if not uses_kueue(spec):
        return None
    for team in spec.teams:
        if team.name == team_name:
            return (team.namespace or team.name), LOCAL_QUEUE_NAME
    return None


__all__ = ["LOCAL_QUEUE_NAME", "PRIORITY_LABEL", "QUEUE_LABEL", "cluster_queue_name", "team_local_queue", "uses_kueue"]
