"""Pure-Python domain model: config shapes, validation rules and derived node pools.

Nothing here imports jsii, cdktf or the provider bindings, so it loads and tests in milliseconds
and the CLI's ``validate`` uses it alone.
"""

from gke_accel.model.cluster.plan import ClusterPlan, plan_cluster
from gke_accel.model.cluster.spec import (
    AuthorizedNetwork,
    AutoProvisioningSpec,
    ClusterSpec,
    MaintenanceExclusion,
    MaintenanceSpec,
    NetworkSpec,
    SystemPoolSpec,
)
from gke_accel.model.core.errors import ConfigError, ConfigIssue
from gke_accel.model.environment.load import load_environment, load_environment_text, plan_environment
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.environment.spec import BackendSpec, EnvironmentSpec
from gke_accel.model.platform.spec import (
    CheckpointSpec,
    DriverInstallerSpec,
    PlatformSpec,
    PriorityClassesSpec,
    PriorityClassSpec,
    TeamSpec,
)
from gke_accel.model.pools.gpu_pool import plan_gpu_pool
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import ConsumptionSpec, GpuPoolSpec, GpuSharingSpec, TpuPoolSpec
from gke_accel.model.pools.tpu_pool import plan_tpu_pool
from gke_accel.model.queues.spec import QueuesSpec, TeamQueueSpec

__all__ = [
    "AuthorizedNetwork",
    "AutoProvisioningSpec",
    "BackendSpec",
    "CheckpointSpec",
    "ClusterPlan",
    "ClusterSpec",
    "ConfigError",
    "ConfigIssue",
    "ConsumptionSpec",
    "DriverInstallerSpec",
    "EnvironmentPlan",
    "EnvironmentSpec",
    "GpuPoolSpec",
    "GpuSharingSpec",
    "MaintenanceExclusion",
    "MaintenanceSpec",
    "NetworkSpec",
    "NodePoolPlan",
    "PlatformSpec",
    "PriorityClassSpec",
    "PriorityClassesSpec",
    "QueuesSpec",
    "SystemPoolSpec",
    "TeamQueueSpec",
    "TeamSpec",
    "TpuPoolSpec",
    "load_environment",
    "load_environment_text",
    "plan_cluster",
    "plan_environment",
    "plan_gpu_pool",
    "plan_tpu_pool",
]
