"""Verify's door into the model: what ``gke-accel verify`` compares a live cluster with (the
objects and controllers an environment installs), by name.

The modules of ``workloads/verify/`` import the model through this file only, and it exports nothing they
do not use (tests/workloads/test_model_door.py), so a move inside ``model/`` touches the doors only.
"""

from __future__ import annotations

from gke_accel.model import ConfigError, EnvironmentPlan
from gke_accel.model.core.input_files import MAX_KUBECONFIG_BYTES, parse_yaml, read_text
from gke_accel.model.environment.objects import cluster_objects
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.model.pools.node_shape import NODEPOOL_LABEL
from gke_accel.model.queues.install import JOBSET, KUEUE
from gke_accel.model.queues.names import uses_kueue

__all__ = [
    "JOBSET",
    "KUEUE",
    "MAX_KUBECONFIG_BYTES",
    "NODEPOOL_LABEL",
    "ConfigError",
    "EnvironmentPlan",
    "accelerator_key",
    "cluster_objects",
    "parse_yaml",
    "read_text",
    "uses_kueue",
]
