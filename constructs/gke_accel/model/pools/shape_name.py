"""The accelerator shape of a pool as Kueue flavors and capacity ladders name it (``v5e-2x4``, ``l4``,
``a100-80gb-mig-1g-10gb``, ``t4-ts4``), read from the labels its nodes carry (``node_shape``)."""

from __future__ import annotations

from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import (
    GPU_ACCELERATOR_LABEL,
    GPU_MAX_CLIENTS_LABEL,
    GPU_PARTITION_LABEL,
    GPU_SHARING_LABEL,
    TPU_TOPOLOGY_LABEL,
    NodeShape,
    node_shape,
)

_SHARING = {"time-sharing": "ts", "mps": "mps"}


def short_name(pool: NodePoolPlan, shape: NodeShape) -> str:
    """The shape's name from the node labels ``shape`` (``node_shape(pool)``) carries."""
    labels = shape.labels
    if pool.kind == "tpu":
        return f"{pool.tpu_generation or pool.accelerator}-{labels[TPU_TOPOLOGY_LABEL]}"
    name = labels[GPU_ACCELERATOR_LABEL].removeprefix("nvidia-")
    if GPU_PARTITION_LABEL in labels:
        name += f"-mig-{labels[GPU_PARTITION_LABEL].replace('.', '-')}"
    if GPU_SHARING_LABEL in labels:
        name += f"-{_SHARING[labels[GPU_SHARING_LABEL]]}{labels[GPU_MAX_CLIENTS_LABEL]}"
    return name


def shape_name(pool: NodePoolPlan) -> str:
    """The accelerator shape of a pool (``v5e-2x4``, ``l4``)."""
    return short_name(pool, node_shape(pool))
