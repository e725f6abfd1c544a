"""What the nodes of each pool look like to the scheduler (labels, taints, allocatable), as the
workload tools need it: ``gke_accel.model.pools.node_shape`` of the environment's NodePoolPlans,
plus the pool's size. Nothing here adds a fact of its own."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from gke_accel.workloads._model import (
    POOL_LABEL,
    EnvironmentPlan,
    NodePoolPlan,
    NodeShape,
    NodeTaint,
    dims,
    node_shape,
    storage_fuse,
)


@dataclass(frozen=True)
class PoolNodes:
    """The nodes of one GKE node pool, as the scheduler sees them."""

    plan: NodePoolPlan
    shape: NodeShape
    max_nodes: int

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def labels(self) -> dict[str, str]:
        return dict(self.shape.labels)

    @property
    def taints(self) -> tuple[NodeTaint, ...]:
        return self.shape.taints

    @property
    def allocatable(self) -> dict[str, Decimal]:
        """What one node offers to Pods: the accelerator resource and, where the catalog knows the
        machine's size, cpu (cores) and memory (bytes) after GKE's reservation."""
        out = {k: Decimal(v) for k, v in self.shape.extended_resources().items()}
        machine = self.shape.machine
        if machine is not None:
            out["cpu"] = Decimal(machine.cpu_millis) / 1000
            out["memory"] = Decimal(machine.memory_mib) * 1024 * 1024
        # local ephemeral storage on the boot disk (model/storage/fuse.py, "Plan GKE Standard node sizes")
        out["ephemeral-storage"] = Decimal(storage_fuse.ephemeral_allocatable_bytes(self.plan.disk_size_gb))
        return out

    @property
    def group(self) -> str:
        """The pool as configured (multi-host TPU slice pools share it)."""
        return self.plan.labels.get(POOL_LABEL, self.plan.name)

    @property
    def slice_vms(self) -> int:
        """VMs in one TPU slice of this pool (1 for GPU pools and single-host slices)."""
        if self.plan.kind != "tpu" or not self.plan.tpu_topology:
            return 1
        return math.prod(dims(self.plan.tpu_topology) or (1,)) // max(1, self.plan.chips_per_node)

    def describe(self) -> str:
        p = self.plan
        if p.kind == "tpu":
            return f"{p.name} ({p.tpu_generation} {p.tpu_topology}, {p.chips_per_node} chips per VM)"
        if p.kind == "gpu":
            return f"{p.name} ({self.shape.allocatable} x {p.resource} per node, {p.accelerator})"
        if p.kind == "cpu":
            return f"{p.name} (CPU, {p.machine_type})"
        return f"{p.name} (system)"


def pool_nodes(plan: EnvironmentPlan, *, include_system: bool = True) -> list[PoolNodes]:
    """Every pool of the environment (the system pool first, the CPU pools last), as its nodes look."""
    pools = [*([plan.cluster.system_pool] if include_system else []), *plan.pools, *plan.cpu_pools]
    return [PoolNodes(pool, node_shape(pool), pool.node_bounds()[1]) for pool in pools]


def slices_of(pool: PoolNodes) -> int:
    """Multi-host TPU slices the pool holds at its largest (GKE: one slice per node pool)."""
    return pool.max_nodes // pool.slice_vms if pool.slice_vms > 1 else 0


def slice_pools(pool: PoolNodes, pools: list[PoolNodes]) -> list[PoolNodes]:
    """The pools among ``pools`` with slices of ``pool``'s shape (same selector, chips per VM and VMs)."""
    return [
        p
        for p in pools
        if slices_of(p) > 0
        and p.shape.selector() == pool.shape.selector()
        and p.plan.chips_per_node == pool.plan.chips_per_node
        and p.slice_vms == pool.slice_vms
    ]
