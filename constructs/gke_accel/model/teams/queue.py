"""A team's queue: the naming contract its workloads rely on and its share of the cohort.

A job reaches its team's share by carrying the label ``kueue.x-k8s.io/queue-name`` with the name of
the LocalQueue in its namespace; ``kueue.x-k8s.io/priority-class`` picks a WorkloadPriorityClass.
The share itself (what Kueue can admit for the team, borrowing included) is computed by
``model/queues`` from the pools and every team's quota, and handed to the team's plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gke_accel.model.teams.compute import TeamCompute

KUEUE_API = "kueue.x-k8s.io/v1beta2"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
LOCAL_QUEUE_NAME = "team"  # the LocalQueue workloads name (``workload new`` writes it)
# A second LocalQueue in every team namespace, to the same ClusterQueue: Kueue runs with
# manageJobsWithoutQueueName (model/queues/install.py), so a Job or pod without the queue label would be
# suspended for good ("LocalQueue  doesn't exist"). Kueue's LocalQueue defaulting (KEP-2936; feature gate
# LocalQueueDefaulting, GA and locked on in v0.17: pkg/features/kube_features.go) labels such a workload
# ``kueue.x-k8s.io/queue-name: default`` when its namespace has a LocalQueue of exactly this name
# (pkg/controller/constants DefaultLocalQueueName; jobframework.ApplyDefaultLocalQueue, the pod webhook).
DEFAULT_LOCAL_QUEUE_NAME = "default"


def cluster_queue_name(team_name: str) -> str:
    return team_name


@dataclass(frozen=True)
class TeamQueueShare:
    """The team's LocalQueue, the ClusterQueue it points at, and its ceiling per accelerator resource
    (nominal quota plus the most it can borrow, over all flavors): its ResourceQuota's ceiling."""

    cluster_queue: str
    compute: TeamCompute  # the cpu/memory quota of its ClusterQueue (the VMs of its ceilings)
    local_queue: str = LOCAL_QUEUE_NAME
    ceilings: dict[str, int] = field(default_factory=dict)

    @property
    def local_queues(self) -> tuple[str, str]:
        """Its LocalQueues: the one workloads name, and ``default`` for workloads without the label."""
        return (self.local_queue, DEFAULT_LOCAL_QUEUE_NAME)
