"""Teams share accelerators through Kueue: flavors from the node-pool plans, one ClusterQueue per team
in one cohort per environment, LocalQueues, priorities and queued-provisioning admission checks."""

from gke_accel.model.queues.flavors import Flavor, plan_flavors
from gke_accel.model.queues.names import (
    LOCAL_QUEUE_NAME,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    cluster_queue_name,
    team_local_queue,
    uses_kueue,
)
from gke_accel.model.queues.plan import FlavorQuota, QueuePlan, TeamQueue, plan_queues
from gke_accel.model.queues.spec import QueuesSpec, TeamQueueSpec

__all__ = [
    "LOCAL_QUEUE_NAME",
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "Flavor",
    "FlavorQuota",
    "QueuePlan",
    "QueuesSpec",
    "TeamQueue",
    "TeamQueueSpec",
    "cluster_queue_name",
    "plan_flavors",
    "plan_queues",
    "team_local_queue",
    "uses_kueue",
]
