"""Monthly cost of an environment from the catalog's list prices (``catalog/prices.yaml``).

Pure Python, no provider import. Rules:
- TPU pools: chips x per-chip-hour price; the TPU host VM costs nothing extra.
- GPU pools on accelerator-optimized machines (a2/a3/g2/g4...): the whole-VM price.
- N1 GPU pools: the N1 host price + GPUs x per-GPU price.
- Boot disks: every node's ``disk_size_gb`` x the catalog's per-GB-month price of its disk type,
  added to the node's price (the system pool's nodes included).
- MIG and shared-GPU pools also get the price of one advertised unit (a MIG instance, a shared slot):
  the node's price over the units it advertises (``unit_cost.py``).
- Anything without a catalog price (e.g. tpu7x) is listed as unpriced rather than invented, and
  left out of the totals.
- The configured consumption decides ``monthly_min``/``monthly_max``: spot uses the Spot price;
  on-demand and reservations the on-demand list price; flex-start and queued (DWS) have their own
  discounted prices that the catalog does not hold, so the on-demand price is shown as an upper
  bound and flagged ``verify``.
Month = ``hours_per_month`` hours (730). Figures are rough list prices for us-central1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from gke_accel.catalog import Catalog, Price, load_catalog
from gke_accel.model.observability.site import ObservedPlan
from gke_accel.model.observability.unit_cost import UnitCost, unit_cost
from gke_accel.model.pools.node_pool import NodePoolPlan


@dataclass(frozen=True)
class NodeRate:
    """USD per node-hour for one pool, on-demand and Spot (None when unknown)."""

    on_demand: float
    spot: float | None
    verify: bool
    basis: str  # how the rate was built, for the table and the review


def node_rate(pool: NodePoolPlan, catalog: Catalog) -> NodeRate | None:
    book = catalog.prices
    if pool.kind == "tpu":
        chip = book.tpu_per_chip_hour.get(pool.tpu_generation or "")
        if chip is None:
            return None
        n = pool.chips_per_node
        spot = None if chip.spot is None else chip.spot * n
        return NodeRate(chip.on_demand * n, spot, chip.verify, f"{n} chips x {pool.tpu_generation} chip-hour")
    machine = book.machine_per_hour.get(pool.machine_type)
    if machine is None:
        return None
    attached = pool.guest_accelerator is not None and pool.machine_type.startswith("n1-")
    if pool.kind == "gpu" and attached:
        gpu: Price | None = book.n1_gpu_per_hour.get(pool.accelerator)
        if gpu is None:
            return None
        n = pool.chips_per_node
        spot = None if machine.spot is None or gpu.spot is None else machine.spot + gpu.spot * n
        return NodeRate(
            machine.on_demand + gpu.on_demand * n,
            spot,
            machine.verify or gpu.verify,
            f"{pool.machine_type} + {n} x {pool.accelerator}",
        )
    return NodeRate(machine.on_demand, machine.spot, machine.verify, f"{pool.machine_type} whole VM")


@dataclass(frozen=True)
class PoolCost:
    name: str
    kind: str
    machine_type: str
    accelerator: str
    nodes_min: int
    nodes_max: int
    consumption: str
    priced: bool
    verify: bool
    basis: str
    hourly_per_node: float | None  # at the configured consumption
    monthly_min: float | None
    monthly_max: float | None
    monthly_max_on_demand: float | None
    monthly_max_spot: float | None
    note: str = ""
    disk_monthly_per_node: float = 0.0  # boot disk, included in the monthly figures
    unit: UnitCost | None = None  # MIG / shared-GPU pools: the price of one advertised nvidia.com/gpu


@dataclass(frozen=True)
class EnvironmentCost:
    environment: str
    source: str
    source_date: str
    hours_per_month: int
    cluster_fee_monthly: float
    pools: tuple[PoolCost, ...]
    total_monthly_min: float
    total_monthly_max: float
    unpriced: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (for ``gke-accel cost --json`` and the plan review)."""
        data = asdict(self)
        data["pools"] = [asdict(p) for p in self.pools]
        data["unpriced"] = list(self.unpriced)
        return data


def _money(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def disk_monthly(pool: NodePoolPlan, catalog: Catalog) -> float:
    """A node's boot disk per month (0 when the catalog has no price for its type)."""
    return pool.disk_size_gb * catalog.prices.disk_per_gb_month.get(pool.disk_type, 0.0)


def pool_cost(pool: NodePoolPlan, catalog: Catalog) -> PoolCost:
    hours = catalog.prices.hours_per_month
    low, high = pool.node_bounds()
    disk = disk_monthly(pool, catalog)
    consumption = pool.consumption
    rate = node_rate(pool, catalog)
    base = PoolCost(
        name=pool.name,
        kind=pool.kind,
        machine_type=pool.machine_type,
        accelerator=(pool.tpu_generation or pool.accelerator) if pool.kind == "tpu" else pool.accelerator,
        nodes_min=low,
        nodes_max=high,
        consumption=consumption,
        priced=False,
        verify=False,
        basis="",
        hourly_per_node=None,
        monthly_min=None,
        monthly_max=None,
        monthly_max_on_demand=None,
        monthly_max_spot=None,
    )
    if rate is None:
        what = pool.tpu_generation if pool.kind == "tpu" else pool.machine_type
        return replace(
            base, note=f"no list price for {what} in catalog/prices.yaml", unit=unit_cost(pool, None, disk, catalog)
        )
    note = ""
    verify = rate.verify
    if consumption == "spot":
        hourly = rate.spot
        if hourly is None:
            note = "no Spot price in the catalog"
    else:
        hourly = rate.on_demand
        if consumption in ("flex-start", "queued"):
            verify = True
            note = "DWS price not in the catalog: on-demand list price shown as an upper bound"
        elif consumption == "reservation":
            note = "reservations are billed whether used or not"
    spot_max = None if rate.spot is None else rate.spot * high * hours
    return replace(
        base,
        priced=hourly is not None,
        verify=verify,
        basis=rate.basis,
        hourly_per_node=None if hourly is None else round(hourly, 6),
        monthly_min=None if hourly is None else _money((hourly * hours + disk) * low),
        monthly_max=None if hourly is None else _money((hourly * hours + disk) * high),
        monthly_max_on_demand=_money((rate.on_demand * hours + disk) * high),
        monthly_max_spot=None if spot_max is None else _money(spot_max + disk * high),
        note=note,
        disk_monthly_per_node=round(disk, 2),
        unit=unit_cost(pool, hourly, disk, catalog),
    )


def estimate_environment(plan: ObservedPlan, catalog: Catalog | None = None) -> EnvironmentCost:
    """``estimate`` of an environment's plan."""
    return estimate(plan.name, (plan.cluster.system_pool, *plan.pools, *plan.cpu_pools), catalog)


def estimate(environment: str, all_pools: Sequence[NodePoolPlan], catalog: Catalog | None = None) -> EnvironmentCost:
    """Monthly cost per pool (the system pool included) at min and max size, plus the cluster fee."""
    catalog = catalog or load_catalog()
    book = catalog.prices
    pools = tuple(pool_cost(p, catalog) for p in all_pools)
    fee = round(book.cluster_fee_per_hour * book.hours_per_month, 2)
    priced = [p for p in pools if p.priced]
    return EnvironmentCost(
        environment=environment,
        source=book.source,
        source_date=book.source_date,
        hours_per_month=book.hours_per_month,
        cluster_fee_monthly=fee,
        pools=pools,
        total_monthly_min=round(fee + sum(p.monthly_min or 0.0 for p in priced), 2),
        total_monthly_max=round(fee + sum(p.monthly_max or 0.0 for p in priced), 2),
        unpriced=tuple(f"{p.name} ({p.note})" for p in pools if not p.priced),
    )
