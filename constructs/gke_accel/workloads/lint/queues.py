"""The Kueue rule: where the environment uses Kueue, a workload carries the queue label of its
team's LocalQueue (from ``gke_accel.model.queues``, once that is on main)."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads._model import EnvironmentPlan, TeamSpec
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Workload

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def team_queue(plan: EnvironmentPlan, team: TeamSpec) -> str | None:
    """The name of the team's LocalQueue, or None when the environment does not use Kueue."""
    return None


def expected_queues(plan: EnvironmentPlan) -> list[dict[str, Any]]:
    """The LocalQueue objects the environment declares (none without Kueue)."""
    return []


def queue_findings(plan: EnvironmentPlan, wl: Workload) -> list[Finding]:
    return []
