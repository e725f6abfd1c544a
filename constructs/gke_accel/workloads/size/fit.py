"""Which accelerators hold a memory estimate: the smallest valid TPU slice per generation and the
fewest GPUs per model, priced with the cost model; or, with an environment, which of its pools fit."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gke_accel.catalog import Catalog, TpuGeneration, load_catalog
from gke_accel.workloads.size._model import (
    POOL_LABEL,
    EnvironmentPlan,
    GpuPoolSpec,
    NodePoolPlan,
    TpuPoolSpec,
    dims,
    node_rate,
    plan_gpu_pool,
    plan_tpu_pool,
    topology_problem,
)
from gke_accel.workloads.size.memory import GIB, MemoryEstimate, ceil_div

CUBE_CHIPS = 64  # one 4x4x4 cube
PRICE_REGION, PRICE_ZONE = "us-central1", "us-central1-a"  # the catalog's list prices are us-central1


@dataclass(frozen=True)
class Option:
    """The smallest shape of one accelerator that holds the estimate."""

    accelerator: str  # v5e, nvidia-h100-80gb, ...
    kind: str  # tpu | gpu
    shape: str  # "2x4 (v5litepod-8)" or "2 x 1 GPUs"
    machine_type: str
    nodes: int
    chips: int
    memory_gib: float
    hourly_on_demand: float | None
    hourly_spot: float | None
    hours_per_month: int
    slices: int = 1  # TPU multislice: slices of ``shape`` joined over the data-center network

    @property
    def monthly_on_demand(self) -> float | None:
        return None if self.hourly_on_demand is None else self.hourly_on_demand * self.hours_per_month

    @property
    def monthly_spot(self) -> float | None:
        return None if self.hourly_spot is None else self.hourly_spot * self.hours_per_month


def _slice_topologies(gen: TpuGeneration, catalog: Catalog) -> list[str]:
    """Every valid slice topology of a generation, smallest first."""
    if gen.dimensions == 2:
        shapes = list(catalog.topologies_2d)
    else:
        shapes = [catalog.single_chip_topology_3d, *catalog.subcube_topologies_3d]
        cubes = gen.max_chips // CUBE_CHIPS  # larger 3D slices: sides in multiples of 4, a <= b <= c
        for a in range(1, cubes + 1):
            for b in range(a, cubes // a + 1):
                shapes += [f"{4 * a}x{4 * b}x{4 * c}" for c in range(b, cubes // (a * b) + 1)]
    valid = [t for t in shapes if topology_problem(gen, t, catalog) is None]
    return sorted(valid, key=lambda t: (math.prod(dims(t) or (0,)), t))


def _price(pools: list[NodePoolPlan], catalog: Catalog) -> tuple[float | None, float | None]:
    on_demand: float | None = 0.0
    spot: float | None = 0.0
    for pool in pools:
        rate = node_rate(pool, catalog)
        nodes = pool.node_bounds()[1]
        on_demand = None if rate is None or on_demand is None else on_demand + rate.on_demand * nodes
        spot = None if rate is None or rate.spot is None or spot is None else spot + rate.spot * nodes
    return on_demand, spot


def _slice_option(gen: TpuGeneration, topology: str, slices: int, catalog: Catalog) -> Option:
    zone = gen.zones[0]
    pools = plan_tpu_pool(
        TpuPoolSpec(name="size", generation=gen.name, topology=topology, zone=zone, max_slices=1),
        region=zone.rsplit("-", 1)[0],
        cluster_zones=(zone,),
        catalog=catalog,
    )
    pool = pools[0]
    on_demand, spot = _price(pools, catalog)
    chips = math.prod(dims(topology) or (0,))
    shape = f"{topology} ({pool.slice_name})"
    return Option(
        accelerator=gen.name,
        kind="tpu",
        shape=shape if slices == 1 else f"{slices} x {shape} multislice",
        machine_type=pool.machine_type,
        nodes=sum(p.node_bounds()[1] for p in pools) * slices,
        chips=chips * slices,
        memory_gib=chips * gen.hbm_gib_per_chip * slices,
        hourly_on_demand=None if on_demand is None else on_demand * slices,
        hourly_spot=None if spot is None else spot * slices,
        hours_per_month=catalog.prices.hours_per_month,
        slices=slices,
    )


def tpu_option(estimate: MemoryEstimate, gen: TpuGeneration, catalog: Catalog) -> Option | None:
    """The smallest slice that holds the estimate; when even the largest slice is too small, that
    slice times the slices needed (multislice: GKE runs it over multi-host slices only, one node pool
    each, joined over the data-center network; "Deploy TPU Multislices in GKE")."""
    per_chip = gen.hbm_gib_per_chip * GIB
    topologies = _slice_topologies(gen, catalog)
    for topology in topologies:
        chips = math.prod(dims(topology) or (0,))
        if chips * per_chip >= estimate.needed_bytes:
            return _slice_option(gen, topology, 1, catalog)
    if not topologies:
        return None
    largest = topologies[-1]
    memory = math.prod(dims(largest) or (0,)) * per_chip
    return _slice_option(gen, largest, ceil_div(estimate.needed_bytes, memory), catalog)


def _gpu_counts(accelerator_type: str, catalog: Catalog) -> list[int]:
    if accelerator_type in catalog.n1_limits:
        return sorted(catalog.n1_limits[accelerator_type])
    return sorted({m.count for m in catalog.machines_for_gpu(accelerator_type) if m.default})


def gpu_option(estimate: MemoryEstimate, accelerator_type: str, catalog: Catalog) -> Option | None:
    model = catalog.gpu_models[accelerator_type]
    counts = _gpu_counts(accelerator_type, catalog)
    if not counts:
        return None
    per_gpu = model.memory_gb * GIB
    gpus = ceil_div(estimate.needed_bytes, per_gpu)
    fitting = [c for c in counts if c >= gpus]
    per_node = fitting[0] if fitting else counts[-1]
    nodes = 1 if fitting else ceil_div(gpus, per_node)
    pools = plan_gpu_pool(
        # A pricing-only plan: the catalog's list prices are us-central1's, wherever the GPU is offered.
        GpuPoolSpec(
            name="size", gpu=model.aliases[0], gpus_per_node=per_node, node_count=nodes, allow_unlisted_zone=True
        ),
        region=PRICE_REGION,
        cluster_zones=(PRICE_ZONE,),
        catalog=catalog,
    )
    on_demand, spot = _price(pools, catalog)
    return Option(
        accelerator=accelerator_type,
        kind="gpu",
        shape=f"{nodes} x {per_node} GPU" + ("s" if per_node > 1 else ""),
        machine_type=pools[0].machine_type,
        nodes=nodes,
        chips=nodes * per_node,
        memory_gib=nodes * per_node * model.memory_gb,
        hourly_on_demand=on_demand,
        hourly_spot=spot,
        hours_per_month=catalog.prices.hours_per_month,
    )


def catalog_options(estimate: MemoryEstimate, catalog: Catalog | None = None) -> list[Option]:
    """Per TPU generation and GPU model in the catalog, the smallest shape that holds the estimate."""
    catalog = catalog or load_catalog()
    options = [tpu_option(estimate, gen, catalog) for gen in catalog.tpu_generations.values()]
    options += [gpu_option(estimate, name, catalog) for name in catalog.gpu_models]
    return [o for o in options if o is not None]


@dataclass(frozen=True)
class PoolFit:
    pool: str  # the pool (or multi-host slice pools) as configured
    accelerator: str
    unit: str  # "slice 2x4" or "node (8 x nvidia-h100-80gb)"
    unit_memory_gib: float
    units_needed: int
    units_max: int
    single_host: bool = False  # a single-host TPU slice: never part of a multislice

    @property
    def fits(self) -> bool:
        return self.units_needed <= self.units_max

    @property
    def verdict(self) -> str:
        if self.units_needed == 1:
            return "fits in one " + self.unit.split(" ")[0]
        if self.fits and self.unit.startswith("slice"):
            return f"fits in {self.units_needed} slices (multislice: --slices {self.units_needed})"
        if self.fits:
            return f"fits in {self.units_needed} {self.unit.split(' ')[0]}s (model-parallel across them)"
        if self.single_host:
            return (
                f"too small: a single-host {self.unit.split(' ')[1]} slice holds {self.unit_memory_gib:g} GiB and "
                f"cannot be combined (multislice needs multi-host slices); needs {self.units_needed}x that"
            )
        if self.unit.startswith("slice") and self.units_max > 1:
            return f"too small: needs {self.units_needed} slices, {self.units_max} of this shape exist"
        return f"too small: needs {self.units_needed} {self.unit.split(' ')[0]}s, the pool has at most {self.units_max}"


def environment_fits(estimate: MemoryEstimate, plan: EnvironmentPlan, catalog: Catalog | None = None) -> list[PoolFit]:
    """For each accelerator pool of the environment: how many slices (TPU) or nodes (GPU) hold the
    estimate, against how many there are. Multi-host TPU slices of one shape combine as a multislice
    over every pool that has them (GKE: multislice needs multi-host slices of the same type, size and
    topology); a single-host slice must hold it alone."""
    catalog = catalog or load_catalog()
    fits: list[PoolFit] = []
    seen: set[str] = set()
    multi = [p for p in plan.pools if p.kind == "tpu" and p.placement is not None and p.placement.tpu_topology]

    def same_shape(a: NodePoolPlan, b: NodePoolPlan) -> bool:
        return (a.accelerator, a.tpu_topology, a.machine_type) == (b.accelerator, b.tpu_topology, b.machine_type)

    for pool in plan.pools:
        group = pool.labels.get(POOL_LABEL, pool.name)
        if group in seen:
            continue
        seen.add(group)
        if pool.kind == "tpu":
            gen = catalog.tpu_generations[pool.tpu_generation or ""]
            chips = math.prod(dims(pool.tpu_topology or "") or (0,))
            memory = chips * gen.hbm_gib_per_chip
            needed = ceil_div(estimate.needed_bytes, memory * GIB)
            slices = sum(p.node_bounds()[1] > 0 for p in multi if same_shape(p, pool)) if pool in multi else 1
            unit = f"slice {pool.tpu_topology}"
            fits.append(PoolFit(group, gen.name, unit, memory, needed, max(1, slices), single_host=pool not in multi))
        else:
            model = catalog.gpu_models[pool.accelerator]
            memory = pool.chips_per_node * model.memory_gb
            needed = ceil_div(estimate.needed_bytes, memory * GIB)
            unit = f"node ({pool.chips_per_node} x {pool.accelerator})"
            fits.append(PoolFit(group, pool.accelerator, unit, memory, needed, pool.node_bounds()[1]))
    return fits
