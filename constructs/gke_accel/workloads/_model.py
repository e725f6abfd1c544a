"""The one place the workload tools import the model's internals from, so a move of modules inside
``gke_accel.model`` touches this file only."""

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
from gke_accel.model.observability.cost import node_rate
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.model.platform.manifests import WORKLOAD_KSA, platform_manifests, quota_key
from gke_accel.model.platform.rules import checkpoint_bucket, team_namespace
from gke_accel.model.platform.spec import TeamSpec
from gke_accel.model.pools.allocatable import GCSFUSE_SIDECAR_CPU_MILLIS, GCSFUSE_SIDECAR_MEMORY_MIB, pod_share
from gke_accel.model.pools.node_pool import GPU_RESOURCE, LABEL_PREFIX, TPU_RESOURCE
from gke_accel.model.pools.node_shape import NODEPOOL_LABEL, NodeShape, NodeTaint, node_shape
from gke_accel.model.pools.topology import dims, topology_problem
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.model.queues.plan import QueuePlan, TeamQueue
from gke_accel.model.storage import fuse as storage_fuse
from gke_accel.model.storage import restart as storage_restart
from gke_accel.model.storage import weights as storage_weights

POOL_LABEL = f"{LABEL_PREFIX}/pool"  # our own label with the pool name as configured

__all__ = [
    "GCSFUSE_SIDECAR_CPU_MILLIS",
    "GCSFUSE_SIDECAR_MEMORY_MIB",
    "GPU_RESOURCE",
    "NODEPOOL_LABEL",
    "POOL_LABEL",
    "TPU_RESOURCE",
    "WORKLOAD_KSA",
    "ConfigError",
    "ConfigIssue",
    "EnvironmentPlan",
    "GpuPoolSpec",
    "NodePoolPlan",
    "NodeShape",
    "NodeTaint",
    "QueuePlan",
    "TeamQueue",
    "TeamSpec",
    "TpuPoolSpec",
    "accelerator_key",
    "checkpoint_bucket",
    "dims",
    "node_rate",
    "node_shape",
    "plan_gpu_pool",
    "plan_tpu_pool",
    "platform_manifests",
    "pod_share",
    "queue_plan_of",
    "quota_key",
    "storage_fuse",
    "storage_restart",
    "storage_weights",
    "team_namespace",
    "topology_problem",
]
