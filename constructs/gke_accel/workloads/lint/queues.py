"""The Kueue rule: where the environment uses Kueue, a workload's queue label names a LocalQueue of its
team (``team``, or ``default``, which Kueue sets where the label is missing). Names come from the
model's queue contract (``gke_accel.model.queues``)."""

from __future__ import annotations

from gke_accel.workloads.lint._model import (
    DEFAULT_LOCAL_QUEUE_NAME,
    FENCE_POLICY,
    QUEUE_LABEL,
    EnvironmentPlan,
    TeamSpec,
    team_local_queue,
)
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Workload


def team_queue(plan: EnvironmentPlan, team: TeamSpec) -> str | None:
    """The name of the team's LocalQueue, or None when the environment does not use Kueue."""
    found: tuple[str, str] | None = team_local_queue(plan.spec, team.name)
    return None if found is None else found[1]


def queue_findings(plan: EnvironmentPlan, wl: Workload, team: TeamSpec | None) -> list[Finding]:
    if team is None:
        return []
    name = team_queue(plan, team)
    if name is None:
        return []
    have = wl.labels.get(QUEUE_LABEL)
    if have is None or have in (name, DEFAULT_LOCAL_QUEUE_NAME):  # missing: Kueue sets `default`, the same ClusterQueue
        return []
    return [
        Finding(
            "queue-label",
            "error",
            f"metadata.labels.{QUEUE_LABEL}",
            f"is {have!r}, not a LocalQueue of team {team.name}: {plan.name} shares accelerators through Kueue, "
            f"which keeps the workload suspended until a LocalQueue of that name exists in its namespace; the "
            f"team's queues are {name!r} and {DEFAULT_LOCAL_QUEUE_NAME!r} (what Kueue sets when the label is missing)",
            f"{QUEUE_LABEL}: {name}",
        )
    ]


PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"  # picks a WorkloadPriorityClass (Kueue's priority)


def kueue_priority_findings(plan: EnvironmentPlan, wl: Workload, team: TeamSpec | None) -> list[Finding]:
    """The ``kueue.x-k8s.io/priority-class`` label sets the priority Kueue admits and preempts with. Where
    the environment uses Kueue, the priority fence (a ValidatingAdmissionPolicy: model/platform/fences.py,
    proven in tests/e2e/test_priority_fence.py) refuses a workload whose label names a class its team may
    not use when it is created, before Kueue sees it (without the fence Kueue admitted it at that
    priority: real-engines s08)."""
    name = wl.labels.get(PRIORITY_LABEL)
    if name is None or team is None:
        return []
    pcs = plan.spec.platform.priority_classes
    defined = [pcs.inference.name, pcs.training.name, pcs.batch.name]
    path = f"metadata.labels.{PRIORITY_LABEL}"
    if team_queue(plan, team) is None:
        return [Finding("priority", "warning", path, f"has no effect: {plan.name} does not use Kueue")]
    if name not in defined:
        return [
            Finding(
                "priority",
                "error",
                path,
                f"{name!r} is not a WorkloadPriorityClass of {plan.name}",
                f"one of {', '.join(defined)}",
            )
        ]
    allowed = list(team.priority_classes) or defined
    if name not in allowed:
        return [
            Finding(
                "priority",
                "error",
                path,
                f"team {team.name} may not use {name!r}: the API server refuses the workload when it is "
                f"created (the priority fence, ValidatingAdmissionPolicy {FENCE_POLICY!r}: Forbidden)",
                f"one of {', '.join(allowed)}",
            )
        ]
    return []


__all__ = [
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "kueue_priority_findings",
    "queue_findings",
    "team_queue",
]
