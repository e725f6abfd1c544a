"""The explainer's door into the model: what ``gke-accel explain`` needs to read a pending
workload's Kueue and node labels, by name.

The modules of ``workloads/explain/`` import the model through this file only, and it exports nothing they
do not use (tests/workloads/test_model_door.py), so a move inside ``model/`` touches the doors only.
"""

from __future__ import annotations

from gke_accel.model.pools.node_shape import NODEPOOL_LABEL
from gke_accel.model.queues.manifests import API as KUEUE_API

__all__ = [
    "KUEUE_API",
    "NODEPOOL_LABEL",
]
