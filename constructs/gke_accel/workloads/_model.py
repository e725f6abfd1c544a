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
from gke_accel.model.capacity import accelerator_key
from gke_accel.model.cost import node_rate
from gke_accel.model.k8s_manifests import WORKLOAD_KSA, platform_manifests, quota_key
from gke_accel.model.node_pool import GPU_RESOURCE, LABEL_PREFIX, TPU_RESOURCE
from gke_accel.model.platform import team_namespace
from gke_accel.model.platform_spec import TeamSpec
from gke_accel.model.spec import ConsumptionSpec
from gke_accel.model.topology import dims, topology_problem

POOL_LABEL = f"{LABEL_PREFIX}/pool"  # our own label with the pool name as configured

__all__ = [
    "GPU_RESOURCE",
    "POOL_LABEL",
    "TPU_RESOURCE",
    "WORKLOAD_KSA",
    "ConfigError",
    "ConfigIssue",
    "ConsumptionSpec",
    "EnvironmentPlan",
    "GpuPoolSpec",
    "NodePoolPlan",
    "TeamSpec",
    "TpuPoolSpec",
    "accelerator_key",
    "dims",
    "node_rate",
    "plan_gpu_pool",
    "plan_tpu_pool",
    "platform_manifests",
    "quota_key",
    "team_namespace",
    "topology_problem",
]

try:  # the model's node shapes, once on main
    from gke_accel.model.pools.node_shape import node_shape  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - until then
    from gke_accel.workloads._provisional_node_shape import node_shape

__all__ += ["node_shape"]
