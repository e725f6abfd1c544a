"""The sizer's door into the model: what ``gke-accel size`` needs to find the pools a model
fits and what they cost, by name.

The modules of ``workloads/size/`` import the model through this file only, and it exports nothing they
do not use (tests/workloads/test_model_door.py), so a move inside ``model/`` touches the doors only.
"""

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
from gke_accel.model.pools.node_pool import POOL_LABEL
from gke_accel.model.pools.topology import dims, topology_problem

__all__ = [
    "POOL_LABEL",
    "ConfigError",
    "ConfigIssue",
    "EnvironmentPlan",
    "GpuPoolSpec",
    "NodePoolPlan",
    "TpuPoolSpec",
    "dims",
    "node_rate",
    "plan_gpu_pool",
    "plan_tpu_pool",
    "topology_problem",
]
