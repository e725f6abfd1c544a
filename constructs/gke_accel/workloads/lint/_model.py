"""The lint rules' door into the model: what ``gke-accel lint`` checks a workload against
(node shapes, labels, queues, quotas, fences, storage), by name.

The modules of ``workloads/lint/`` import the model through this file only, and it exports nothing they
do not use (tests/workloads/test_model_door.py), so a move inside ``model/`` touches the doors only.
"""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.model.platform.fences import POLICY_NAME as FENCE_POLICY
from gke_accel.model.platform.manifests import platform_manifests, quota_key
from gke_accel.model.platform.rules import team_namespace
from gke_accel.model.platform.spec import TeamSpec
from gke_accel.model.pools.allocatable import (
    GCSFUSE_SIDECAR_CPU_MILLIS,
    GCSFUSE_SIDECAR_MEMORY_MIB,
    KERNEL_MEMORY_PERCENT,
    SYSTEM_DAEMONS_CPU_MILLIS,
    SYSTEM_DAEMONS_MEMORY_MIB,
    fill_room,
)
from gke_accel.model.pools.node_pool import GPU_RESOURCE, TPU_RESOURCE
from gke_accel.model.pools.node_shape import (
    COMPUTE_CLASS_LABEL,
    NODEPOOL_LABEL,
    TPU_ACCELERATOR_LABEL,
    TPU_TOPOLOGY_LABEL,
    NodeTaint,
)
from gke_accel.model.queues.names import PRIORITY_LABEL, QUEUE_LABEL, team_local_queue, uses_kueue
from gke_accel.model.queues.of_environment import queue_plan_of, slice_topology_of
from gke_accel.model.queues.plan import TeamQueue
from gke_accel.model.queues.topology import slice_request
from gke_accel.model.storage import fuse as storage_fuse
from gke_accel.model.storage import restart as storage_restart
from gke_accel.model.teams.queue import DEFAULT_LOCAL_QUEUE_NAME

__all__ = [
    "COMPUTE_CLASS_LABEL",
    "DEFAULT_LOCAL_QUEUE_NAME",
    "FENCE_POLICY",
    "GCSFUSE_SIDECAR_CPU_MILLIS",
    "GCSFUSE_SIDECAR_MEMORY_MIB",
    "GPU_RESOURCE",
    "KERNEL_MEMORY_PERCENT",
    "NODEPOOL_LABEL",
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "SYSTEM_DAEMONS_CPU_MILLIS",
    "SYSTEM_DAEMONS_MEMORY_MIB",
    "TPU_ACCELERATOR_LABEL",
    "TPU_RESOURCE",
    "TPU_TOPOLOGY_LABEL",
    "EnvironmentPlan",
    "NodeTaint",
    "TeamQueue",
    "TeamSpec",
    "accelerator_key",
    "fill_room",
    "ladders_of",
    "platform_manifests",
    "queue_plan_of",
    "quota_key",
    "slice_request",
    "slice_topology_of",
    "storage_fuse",
    "storage_restart",
    "team_local_queue",
    "team_namespace",
    "uses_kueue",
]
