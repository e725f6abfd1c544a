"""Each team's share of the cohort, from a queue plan, as the team's plan holds it."""

from __future__ import annotations

from gke_accel.model.queues.plan import QueuePlan
from gke_accel.model.teams.queue import TeamQueueShare


def team_shares(plan: QueuePlan | None) -> dict[str, TeamQueueShare] | None:
    """Team name -> its LocalQueue, ClusterQueue and ceilings; None when there are no queues."""
    if plan is None:
        return None
    return {
        t.team: TeamQueueShare(
            cluster_queue=t.cluster_queue, local_queue=t.local_queue, ceilings=dict(t.ceilings), compute=t.compute
        )
        for t in plan.teams
    }
