"""The price of one unit a pod requests on a MIG or shared-GPU pool (issue #21).

A node of such a pool advertises ``nvidia.com/gpu`` in MIG instances or shared slots, not physical
GPUs (``model/pools/node_shape.py``: e.g. one A100 80GB as ``1g.10gb`` is 7 instances, one T4
time-shared by 4 clients is 4 slots). The pool's node price (``cost.node_rate``) divided by that count
is what one ``nvidia.com/gpu: 1`` of a pod costs when the node is full; an idle instance still costs
its share. Whole-GPU and TPU pools have no unit price (a GPU's price is the node's per GPU).
"""

from __future__ import annotations

from dataclasses import dataclass

from gke_accel.catalog import Catalog
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import node_shape

_STRATEGY = {"TIME_SHARING": "time-sharing", "MPS": "MPS"}


@dataclass(frozen=True)
class UnitCost:
    unit: str  # what one nvidia.com/gpu of the pool is, e.g. "MIG 1g.10gb instance"
    per_node: int  # units one node advertises
    hourly: float | None  # USD per unit-hour at the configured consumption
    monthly: float | None  # USD per unit-month, the node's boot disk shared out too


def unit_name(pool: NodePoolPlan) -> str | None:
    """What one advertised ``nvidia.com/gpu`` of the pool is, or None for whole GPUs and TPUs."""
    accel = pool.guest_accelerator
    if pool.kind != "gpu" or accel is None or not (accel.partition_size or accel.sharing):
        return None
    mig = f"MIG {accel.partition_size} instance" if accel.partition_size else ""
    if accel.sharing is None:
        return mig
    slot = f"{_STRATEGY[accel.sharing.strategy]} slot ({accel.sharing.max_shared_clients} clients)"
    return f"{slot} of a {mig}" if mig else f"{slot} of a GPU"


def unit_cost(
    pool: NodePoolPlan, hourly_per_node: float | None, disk_monthly_per_node: float, catalog: Catalog
) -> UnitCost | None:
    """Per-unit price of a MIG or shared-GPU pool's nodes (None for other pools)."""
    name = unit_name(pool)
    if name is None:
        return None
    per_node = node_shape(pool, catalog).allocatable
    if hourly_per_node is None or per_node <= 0:
        return UnitCost(name, per_node, None, None)
    hours = catalog.prices.hours_per_month
    return UnitCost(
        unit=name,
        per_node=per_node,
        hourly=round(hourly_per_node / per_node, 6),
        monthly=round((hourly_per_node * hours + disk_monthly_per_node) / per_node, 2),
    )
