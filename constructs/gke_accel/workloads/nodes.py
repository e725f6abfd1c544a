"""What the nodes of each pool look like to the scheduler (labels, taints, allocatable), as the
workload tools need it. The facts come from the model's ``NodePoolPlan``s, never from here."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from gke_accel.workloads._model import EnvironmentPlan, NodePoolPlan, dims, node_shape

EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}


@dataclass(frozen=True)
class NodeTaint:
    key: str
    value: str
    effect: str  # Kubernetes spelling: NoSchedule, PreferNoSchedule, NoExecute


@dataclass(frozen=True)
class PoolNodes:
    """The nodes of one GKE node pool, as the scheduler sees them."""

    plan: NodePoolPlan
    labels: dict[str, str]
    taints: tuple[NodeTaint, ...]
    allocatable: dict[str, Decimal]  # resources the scheduler can place (accelerators, and cpu/memory if known)
    max_nodes: int

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def group(self) -> str:
        """The pool as configured (multi-host TPU slice pools share it)."""
        return self.plan.labels.get("gke-accel/pool", self.plan.name)

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
            return f"{p.name} ({p.chips_per_node} x {p.accelerator} per node)"
        return f"{p.name} (system)"


def pool_nodes(plan: EnvironmentPlan, *, include_system: bool = True) -> list[PoolNodes]:
    """Every pool of the environment (the system pool first), as its nodes look."""
    pools = [plan.cluster.system_pool, *plan.pools] if include_system else list(plan.pools)
    out = []
    for pool in pools:
        shape = node_shape(pool)
        out.append(
            PoolNodes(
                plan=pool,
                labels=dict(shape.labels),
                taints=tuple(NodeTaint(t.key, t.value, EFFECTS.get(t.effect, t.effect)) for t in shape.taints),
                allocatable={k: Decimal(str(v)) for k, v in shape.allocatable.items()},
                max_nodes=pool.node_bounds()[1],
            )
        )
    return out
