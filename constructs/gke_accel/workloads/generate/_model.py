"""The generator's door into the model: what ``gke-accel workload new`` builds a Job, JobSet
or Deployment from, by name.

The modules of ``workloads/generate/`` import the model through this file only, and it exports nothing they
do not use (tests/workloads/test_model_door.py), so a move inside ``model/`` touches the doors only.
"""

from __future__ import annotations

from gke_accel.model import ConfigError, ConfigIssue, EnvironmentPlan
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.model.platform.manifests import WORKLOAD_KSA
from gke_accel.model.platform.rules import checkpoint_bucket
from gke_accel.model.platform.spec import TeamSpec
from gke_accel.model.pools.allocatable import GCSFUSE_SIDECAR_CPU_MILLIS, GCSFUSE_SIDECAR_MEMORY_MIB, pod_share
from gke_accel.model.pools.node_shape import NODEPOOL_LABEL
from gke_accel.model.queues.of_environment import queue_plan_of, slice_topology_of
from gke_accel.model.queues.topology import slice_request
from gke_accel.model.storage import fuse as storage_fuse
from gke_accel.model.storage import weights as storage_weights
from gke_accel.model.teams.accelerators import accelerator_name

__all__ = [
    "GCSFUSE_SIDECAR_CPU_MILLIS",
    "GCSFUSE_SIDECAR_MEMORY_MIB",
    "NODEPOOL_LABEL",
    "WORKLOAD_KSA",
    "ConfigError",
    "ConfigIssue",
    "EnvironmentPlan",
    "TeamSpec",
    "accelerator_key",
    "accelerator_name",
    "checkpoint_bucket",
    "pod_share",
    "queue_plan_of",
    "slice_request",
    "slice_topology_of",
    "storage_fuse",
    "storage_weights",
]
