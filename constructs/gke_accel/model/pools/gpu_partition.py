"""How a GPU pool divides its GPUs: MIG partitions (sizes the GPU model supports) and time-sharing or
MPS (clients per GPU within the catalog's limit)."""

from __future__ import annotations

from typing import Literal

from gke_accel.catalog import Catalog
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.pools.gpu_machine import GpuHardware
from gke_accel.model.pools.node_pool import GpuSharing
from gke_accel.model.pools.spec import GpuPoolSpec


def check_partition(spec: GpuPoolSpec, hw: GpuHardware, path: str, catalog: Catalog, issues: IssueCollector) -> None:
    """``partition_size`` must be a MIG size of the pool's GPU model."""
    if spec.partition_size is None:
        return
    if not hw.model.mig_sizes:
        mig = [m.aliases[0] for m in catalog.gpu_models.values() if m.mig_sizes]
        issues.bad(
            f"{path}.partition_size",
            spec.partition_size,
            f"is not possible: {hw.model.accelerator_type} has no multi-instance GPU support",
            f"a GPU with MIG ({', '.join(mig)}), or leave it out",
        )
    elif spec.partition_size not in hw.model.mig_sizes:
        issues.bad(
            f"{path}.partition_size",
            spec.partition_size,
            f"is not a MIG partition size of {hw.model.accelerator_type}",
            hw.model.mig_sizes,
        )


def plan_sharing(spec: GpuPoolSpec, path: str, catalog: Catalog, issues: IssueCollector) -> GpuSharing | None:
    """The pool's GPU sharing (time-sharing or MPS), None without ``sharing``."""
    if spec.sharing is None:
        return None
    limit = catalog.max_shared_clients_per_gpu
    if not 2 <= spec.sharing.max_clients <= limit:
        issues.bad(f"{path}.sharing.max_clients", spec.sharing.max_clients, "is out of range", f"2 to {limit}")
    strategy: Literal["TIME_SHARING", "MPS"] = "TIME_SHARING" if spec.sharing.strategy == "time-sharing" else "MPS"
    return GpuSharing(strategy, spec.sharing.max_clients)
