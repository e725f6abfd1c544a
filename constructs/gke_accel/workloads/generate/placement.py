"""Which pool a ``workload new`` request lands on, and whether its shape (slices, nodes) fits there."""

from __future__ import annotations

from gke_accel.catalog import load_catalog
from gke_accel.workloads.generate._model import EnvironmentPlan, accelerator_key, accelerator_name
from gke_accel.workloads.generate.request import Kind, WorkloadRequest, fail
from gke_accel.workloads.ladder import ladder_of_pool
from gke_accel.workloads.nodes import PoolNodes, pool_nodes, slice_pools, slices_of

SHORT_LIVED = ("flex-start", "queued")  # consumption of pools whose VMs live at most 7 days


def choose_pool(plan: EnvironmentPlan, req: WorkloadRequest) -> PoolNodes:
    catalog = load_catalog()
    key = accelerator_key(req.accelerator, catalog)
    pools = [p for p in pool_nodes(plan, include_system=False) if key is not None and p.plan.unit == key[1]]
    # as the flag takes them (l4, v5e), not the node labels (nvidia-l4); accelerator pools only
    offered = sorted({accelerator_name(p.plan.unit, catalog) for p in pool_nodes(plan, include_system=False)
                      if p.plan.kind in ("tpu", "gpu")})  # fmt: skip
    if not pools:
        raise fail("--accelerator", f"{req.accelerator!r}: no pool of {plan.name} has it", offered)
    if req.kind == "deployment" and not req.flex_start:
        # a server is not a batch job: flex-start and queued-provisioning VMs live at most 7 days (W8)
        lasting = [p for p in pools if p.plan.consumption not in SHORT_LIVED]
        if not lasting:
            raise fail(
                "--kind",
                f"deployment: every {req.accelerator} pool of {plan.name} is flex-start or queued-provisioning "
                f"capacity ({', '.join(p.name for p in pools)}), whose VMs GKE stops after at most 7 days",
                "--flex-start to serve on it anyway, or an on-demand, reservation or Spot pool of it",
            )
        pools = lasting
    if pools[0].plan.kind == "tpu":
        if req.chips is None:
            return pools[0]
        match = [p for p in pools if p.plan.chips_per_node * p.slice_vms == req.chips]
        if not match:
            shapes = sorted({f"{p.plan.chips_per_node * p.slice_vms} ({p.plan.tpu_topology})" for p in pools})
            raise fail(
                "--chips", f"{req.chips} is not the chip count of a {req.accelerator} slice in {plan.name}", shapes
            )
        return match[0]
    gpus = req.chips or 1
    match = sorted((p for p in pools if p.shape.allocatable >= gpus), key=lambda p: p.shape.allocatable)
    if not match:
        raise fail(
            "--gpus",
            f"{gpus} GPUs per pod: no {req.accelerator} pool has that many per node",
            sorted({p.shape.allocatable for p in pools}),
        )
    if req.nodes > 1:
        # one pool holds every node, and its placement policy puts them close (compact) if it has one
        big = [p for p in match if p.max_nodes >= req.nodes]
        if not big:
            raise fail(
                "--nodes",
                f"{req.nodes} nodes of {gpus} {req.accelerator} GPUs: no pool of {plan.name} grows that large",
                [f"{p.name}: {p.max_nodes}" for p in match],
            )
        return sorted(big, key=lambda p: not (p.plan.placement and p.plan.placement.compact))[0]
    return match[0]


def check_shape(plan: EnvironmentPlan, req: WorkloadRequest, pool: PoolNodes) -> None:
    """--slices and --nodes against the pool (lint checks the same on any file)."""
    vms = pool.slice_vms
    if req.slices < 1 or req.nodes < 1:
        raise fail("--slices/--nodes", f"{req.slices}/{req.nodes} is out of range", "1 or more")
    if req.slices > 1:
        if vms == 1 or req.kind != "jobset":
            raise fail("--slices", f"{req.slices}: multislice runs one JobSet over multi-host TPU slices", "1")
        pools = slice_pools_of(plan, pool)
        held = sum(slices_of(p) for p in pools)
        if req.slices > held:
            raise fail(
                "--slices",
                f"{req.slices}: {plan.name} has {held} {pool.plan.tpu_topology} slice(s)",
                f"at most {held} ({', '.join(p.name for p in pools)})",
            )
    if req.nodes > 1 and (pool.plan.kind != "gpu" or req.kind != "jobset"):
        raise fail("--nodes", f"{req.nodes}: several nodes are a JobSet on a GPU pool", "--kind jobset on GPUs")


def slice_pools_of(plan: EnvironmentPlan, pool: PoolNodes) -> list[PoolNodes]:
    """The pools whose slices a multislice JobSet on ``pool`` may take: behind a capacity ladder, the
    slices of that shape on every rung (the JobSet selects the class, W8), else the pools of its selector."""
    every = pool_nodes(plan, include_system=False)
    ladder = ladder_of_pool(plan, pool.name)
    if ladder is None:
        return slice_pools(pool, every)
    rungs = {name for rung in ladder.rungs for name in rung.pools}
    return [p for p in every if p.name in rungs and slices_of(p) > 0
            and (p.plan.chips_per_node, p.slice_vms) == (pool.plan.chips_per_node, pool.slice_vms)]  # fmt: skip


def default_kind(pool: PoolNodes) -> Kind:
    """A multi-host slice runs as one JobSet (a pod per VM, started and restarted together); else a Job."""
    return "jobset" if pool.slice_vms > 1 else "job"
