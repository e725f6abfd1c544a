"""Pure-Python domain model: config shapes, validation rules and derived node pools.

Nothing here imports jsii, cdktf or the provider bindings, so it loads and tests in milliseconds
and the CLI's ``validate`` uses it alone.
"""

from gke_accel.model.cluster import ClusterPlan, plan_cluster
from gke_accel.model.environment import EnvironmentPlan, load_environment, load_environment_text, plan_environment
from gke_accel.model.errors import ConfigError, ConfigIssue
from gke_accel.model.gpu_pool import plan_gpu_pool
from gke_accel.model.node_pool import NodePoolPlan
from gke_accel.model.spec import (
    AuthorizedNetwork,
    AutoProvisioningSpec,
    BackendSpec,
    ClusterSpec,
    ConsumptionSpec,
    EnvironmentSpec,
    GpuPoolSpec,
    GpuSharingSpec,
    MaintenanceExclusion,
    MaintenanceSpec,
    NetworkSpec,
    SystemPoolSpec,
    TpuPoolSpec,
)
from gke_accel.model.tpu_pool import plan_tpu_pool

__all__ = [
    "AuthorizedNetwork",
    "AutoProvisioningSpec",
    "BackendSpec",
    "ClusterPlan",
    "ClusterSpec",
    "ConfigError",
    "ConfigIssue",
    "ConsumptionSpec",
    "EnvironmentPlan",
    "EnvironmentSpec",
    "GpuPoolSpec",
    "GpuSharingSpec",
    "MaintenanceExclusion",
    "MaintenanceSpec",
    "NetworkSpec",
    "NodePoolPlan",
    "SystemPoolSpec",
    "TpuPoolSpec",
    "load_environment",
    "load_environment_text",
    "plan_cluster",
    "plan_environment",
    "plan_gpu_pool",
    "plan_tpu_pool",
]
