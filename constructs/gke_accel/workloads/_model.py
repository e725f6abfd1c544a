"""The one place the workload tools import the model's internals from, so a move of modules inside
``gke_accel.model`` touches this file only (tests/workloads/test_model_door.py fails on any other
import of ``gke_accel.model`` under ``workloads/``)."""

from __future__ import annotations

from gke_accel.model import (
    ConfigError,
    ConfigIssue,
    EnvironmentPlan,
    GpuPoolSpec,
    NodePoolPlan,
    TpuPoolSpec,
    plan_gpu_pool,
    plan_tpu_pool,
)
from gke_accel.model.capacity.ladder import LadderPlan
from gke_accel.model.core.yaml_input import ConfigInputError, parse_config_documents
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.observability.cost import node_rate
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.model.platform.fences import POLICY_NAME as FENCE_POLICY
from gke_accel.model.platform.fences import priority_fence
from gke_accel.model.platform.manifests import WORKLOAD_KSA, platform_manifests, quota_key
from gke_accel.model.platform.rules import checkpoint_bucket, team_namespace
from gke_accel.model.platform.spec import TeamSpec
from gke_accel.model.pools.allocatable import (
    GCSFUSE_SIDECAR_CPU_MILLIS,
    GCSFUSE_SIDECAR_MEMORY_MIB,
    KERNEL_MEMORY_PERCENT,
    SYSTEM_DAEMONS_CPU_MILLIS,
    SYSTEM_DAEMONS_MEMORY_MIB,
    fill_room,
    pod_share,
)
from gke_accel.model.pools.node_pool import GPU_RESOURCE, POOL_LABEL, TPU_RESOURCE
from gke_accel.model.pools.node_shape import (
    CAPACITY_LABEL,
    COMPUTE_CLASS_LABEL,
    FLEX_START_LABEL,
    NODEPOOL_LABEL,
    QUEUED_LABEL,
    RESERVATION_LABEL,
    RUNG_LABEL,
    SPOT_LABEL,
    TPU_ACCELERATOR_LABEL,
    TPU_TOPOLOGY_LABEL,
    NodeShape,
    NodeTaint,
    node_shape,
)
from gke_accel.model.pools.topology import dims, topology_problem
from gke_accel.model.queues.install import JOBSET, KUEUE
from gke_accel.model.queues.manifests import API as KUEUE_API
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.names import (
    PRIORITY_LABEL,
    QUEUE_LABEL,
    cluster_queue_name,
    team_local_queue,
    uses_kueue,
)
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.model.queues.plan import QueuePlan, TeamQueue
from gke_accel.model.storage import fuse as storage_fuse
from gke_accel.model.storage import restart as storage_restart
from gke_accel.model.storage import weights as storage_weights
from gke_accel.model.teams.queue import DEFAULT_LOCAL_QUEUE_NAME

__all__ = [
    "CAPACITY_LABEL",
    "COMPUTE_CLASS_LABEL",
    "DEFAULT_LOCAL_QUEUE_NAME",
    "FENCE_POLICY",
    "FLEX_START_LABEL",
    "GCSFUSE_SIDECAR_CPU_MILLIS",
    "GCSFUSE_SIDECAR_MEMORY_MIB",
    "GPU_RESOURCE",
    "JOBSET",
    "KERNEL_MEMORY_PERCENT",
    "KUEUE",
    "KUEUE_API",
    "NODEPOOL_LABEL",
    "POOL_LABEL",
    "PRIORITY_LABEL",
    "QUEUED_LABEL",
    "QUEUE_LABEL",
    "RESERVATION_LABEL",
    "RUNG_LABEL",
    "SPOT_LABEL",
    "SYSTEM_DAEMONS_CPU_MILLIS",
    "SYSTEM_DAEMONS_MEMORY_MIB",
    "TPU_ACCELERATOR_LABEL",
    "TPU_RESOURCE",
    "TPU_TOPOLOGY_LABEL",
    "WORKLOAD_KSA",
    "ConfigError",
    "ConfigInputError",
    "ConfigIssue",
    "EnvironmentPlan",
    "GpuPoolSpec",
    "LadderPlan",
    "NodePoolPlan",
    "NodeShape",
    "NodeTaint",
    "QueuePlan",
    "TeamQueue",
    "TeamSpec",
    "TpuPoolSpec",
    "accelerator_key",
    "checkpoint_bucket",
    "cluster_queue_name",
    "dims",
    "fill_room",
    "ladders_of",
    "node_rate",
    "node_shape",
    "parse_config_documents",
    "plan_gpu_pool",
    "plan_tpu_pool",
    "platform_manifests",
    "pod_share",
    "priority_fence",
    "queue_manifests",
    "queue_plan_of",
    "quota_key",
    "storage_fuse",
    "storage_restart",
    "storage_weights",
    "team_local_queue",
    "team_namespace",
    "topology_problem",
    "uses_kueue",
]
