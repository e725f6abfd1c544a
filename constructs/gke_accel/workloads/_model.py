"""The shared workload helpers' door into the model: what the modules directly in ``workloads/``
(node shapes of the pools, the capacity ladders, reading workload files) need, by name.

The modules of ``workloads/`` import the model through this file only, and it exports nothing they
do not use (tests/workloads/test_model_door.py), so a move inside ``model/`` touches the doors only.
"""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan, NodePoolPlan
from gke_accel.model.capacity.ladder import LadderPlan
from gke_accel.model.core.yaml_input import ConfigInputError, parse_config_documents
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.pools.node_pool import POOL_LABEL
from gke_accel.model.pools.node_shape import (
    CAPACITY_LABEL,
    FLEX_START_LABEL,
    NODEPOOL_LABEL,
    QUEUED_LABEL,
    RESERVATION_LABEL,
    RUNG_LABEL,
    SPOT_LABEL,
    NodeShape,
    NodeTaint,
    node_shape,
)
from gke_accel.model.pools.topology import dims
from gke_accel.model.storage import fuse as storage_fuse

__all__ = [
    "CAPACITY_LABEL",
    "FLEX_START_LABEL",
    "NODEPOOL_LABEL",
    "POOL_LABEL",
    "QUEUED_LABEL",
    "RESERVATION_LABEL",
    "RUNG_LABEL",
    "SPOT_LABEL",
    "ConfigInputError",
    "EnvironmentPlan",
    "LadderPlan",
    "NodePoolPlan",
    "NodeShape",
    "NodeTaint",
    "dims",
    "ladders_of",
    "node_shape",
    "parse_config_documents",
    "storage_fuse",
]
