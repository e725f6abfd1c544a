"""Which machine a GPU pool runs on: a GPU model and count, or a machine type, resolved against the
catalog (accelerator-optimized machines fix the GPU; N1 hosts attach T4/V100/P4/P100 within limits)."""

from __future__ import annotations

from dataclasses import dataclass

from gke_accel.catalog import Catalog, GpuModel
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.pools.n1_shape import N1Shape, n1_shape
from gke_accel.model.pools.spec import GpuPoolSpec


@dataclass(frozen=True)
class GpuHardware:
    """The resolved machine type, GPU model and GPUs per node of one pool."""

    machine_type: str
    model: GpuModel
    count: int


def resolve_machine(spec: GpuPoolSpec, path: str, catalog: Catalog, issues: IssueCollector) -> GpuHardware | None:
    """The pool's hardware, or None with the reasons added to ``issues``."""
    model = None
    if spec.gpu is not None:
        model = catalog.gpu_model(spec.gpu)
        if model is None:
            issues.bad(f"{path}.gpu", spec.gpu, "is not a known GPU model", catalog.gpu_names())
            return None
    if spec.gpus_per_node is not None and spec.gpus_per_node < 1:
        issues.bad(f"{path}.gpus_per_node", spec.gpus_per_node, "is out of range", "1 or more")
        return None
    if spec.machine_type is not None:
        return _given_machine(spec, spec.machine_type, model, path, catalog, issues)
    if model is None:
        issues.bad(f"{path}.gpu", None, "is required when machine_type is not given", catalog.gpu_names())
        return None
    return _default_machine(spec, model, path, catalog, issues)


def _given_machine(
    spec: GpuPoolSpec, machine_type: str, model: GpuModel | None, path: str, catalog: Catalog, issues: IssueCollector
) -> GpuHardware | None:
    fixed = catalog.gpu_machines.get(machine_type)
    if fixed is not None:  # rule G1: accelerator-optimized machines fix GPU type and count
        fixed_model = catalog.gpu_models[fixed.accelerator_type]
        if model is not None and model is not fixed_model:
            issues.bad(
                f"{path}.gpu",
                spec.gpu,
                f"does not match machine type {fixed.machine_type}",
                [fixed_model.aliases[0], fixed.accelerator_type],
            )
            return None
        if spec.gpus_per_node is not None and spec.gpus_per_node != fixed.count:
            issues.bad(
                f"{path}.gpus_per_node",
                spec.gpus_per_node,
                f"does not match machine type {fixed.machine_type}",
                [fixed.count],
            )
            return None
        return GpuHardware(fixed.machine_type, fixed_model, fixed.count)
    host = n1_shape(machine_type, catalog.n1_shapes)
    if isinstance(host, str):
        if model is not None and model.attach == "fixed":
            valid = [m.machine_type for m in catalog.machines_for_gpu(model.accelerator_type)]
        elif model is not None:
            valid = ["n1-standard-*", "n1-highmem-*", "n1-highcpu-*", "custom-<vCPU>-<MB>"]
        else:
            valid = [*list(catalog.gpu_machines), "an N1 machine type"]
        what = host if host.startswith("is a shared-core") else "is not a GPU machine type"
        issues.bad(f"{path}.machine_type", machine_type, what, valid)
        return None
    if model is None or model.attach != "n1":
        n1_models = [m.aliases[0] for m in catalog.gpu_models.values() if m.attach == "n1"]
        issues.bad(f"{path}.gpu", spec.gpu, f"must name a GPU that attaches to {host.machine_type}", n1_models)
        return None
    return _n1_host(spec, machine_type, host, model, path, catalog, issues)


def _n1_host(
    spec: GpuPoolSpec,
    machine_type: str,
    host: N1Shape,
    model: GpuModel,
    path: str,
    catalog: Catalog,
    issues: IssueCollector,
) -> GpuHardware | None:
    count = spec.gpus_per_node or 1
    limits = catalog.n1_limits[model.accelerator_type]
    limit = limits.get(count)
    if limit is None:
        issues.bad(f"{path}.gpus_per_node", count, f"is not valid for {model.accelerator_type}", sorted(limits))
        return None
    if host.vcpu > limit.max_vcpu or host.memory_gb > limit.max_memory_gb:
        fits = [
            h for h, n in catalog.n1_hosts.items() if n.vcpu <= limit.max_vcpu and n.memory_gb <= limit.max_memory_gb
        ]
        issues.bad(
            f"{path}.machine_type",
            machine_type,
            f"is too large for {count} x {model.accelerator_type} "
            f"(at most {limit.max_vcpu} vCPU and {limit.max_memory_gb} GB)",
            [*fits, "or any smaller N1 shape"],
        )
        return None
    return GpuHardware(host.machine_type, model, count)


def _default_machine(
    spec: GpuPoolSpec, model: GpuModel, path: str, catalog: Catalog, issues: IssueCollector
) -> GpuHardware | None:
    count = spec.gpus_per_node or 1
    if model.attach == "n1":
        limits = catalog.n1_limits[model.accelerator_type]
        if count not in limits:
            issues.bad(f"{path}.gpus_per_node", count, f"is not valid for {model.accelerator_type}", sorted(limits))
            return None
        return GpuHardware(catalog.n1_default_host[count], model, count)
    machines = [m for m in catalog.machines_for_gpu(model.accelerator_type) if m.default]
    match = [m for m in machines if m.count == count]
    if not match:
        issues.bad(
            f"{path}.gpus_per_node",
            count,
            f"is not valid for {model.accelerator_type}",
            sorted({m.count for m in machines}),
        )
        return None
    return GpuHardware(match[0].machine_type, model, count)
