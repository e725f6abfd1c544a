"""The queue naming contract that workloads, templates and lint rely on.

A job reaches its team's share by carrying the label ``kueue.x-k8s.io/queue-name`` with the name of
the LocalQueue in its namespace; ``kueue.x-k8s.io/priority-class`` picks a WorkloadPriorityClass.
"""

from __future__ import annotations

from typing import Any

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
LOCAL_QUEUE_NAME = "team"  # the LocalQueue workloads name (``workload new`` writes it)
# A second LocalQueue in every team namespace, to the same ClusterQueue: Kueue runs with
# manageJobsWithoutQueueName (install.py), so a Job or pod without the queue label would be suspended
# for good ("LocalQueue  doesn't exist"). Kueue's LocalQueue defaulting (KEP-2936; feature gate
# LocalQueueDefaulting, GA and locked on in v0.17: pkg/features/kube_features.go) labels such a workload
# ``kueue.x-k8s.io/queue-name: default`` when its namespace has a LocalQueue of exactly this name
# (pkg/controller/constants DefaultLocalQueueName; jobframework.ApplyDefaultLocalQueue, the pod webhook).
DEFAULT_LOCAL_QUEUE_NAME = "default"


def uses_kueue(spec: Any) -> bool:
    """Whether an environment (an ``EnvironmentSpec``) shares accelerators through Kueue."""
    queues = getattr(spec, "queues", None)
    return queues is not None and bool(queues.enabled)


def cluster_queue_name(team_name: str) -> str:
    return team_name


def cohort_name(spec: Any) -> str:
    queues = getattr(spec, "queues", None)
    return (queues.cohort if queues is not None and queues.cohort else None) or str(spec.environment)


def team_local_queue(spec: Any, team_name: str) -> tuple[str, str] | None:
    """(namespace, LocalQueue name) a team's jobs must name, or None when the environment has no
    Kueue or no such team."""
    if not uses_kueue(spec):
        return None
    for team in spec.teams:
        if team.name == team_name:
            return (team.namespace or team.name), LOCAL_QUEUE_NAME
    return None
