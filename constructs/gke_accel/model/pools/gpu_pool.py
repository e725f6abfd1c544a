"""NVIDIA GPU pools: a GPU model and count (or a machine type) in, a validated node pool out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gke_accel.catalog import Catalog, GpuModel, load_catalog
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.labels import check_node_labels
from gke_accel.model.core.limits import MAX_NODES_PER_POOL_ZONE, check_disk
from gke_accel.model.core.names import ZONE, check_pool_name, check_zones, region_of
from gke_accel.model.pools.consumption import plan_consumption
from gke_accel.model.pools.n1_shape import n1_shape
from gke_accel.model.pools.node_pool import (
    DRIVER_VARIANT_LABEL,
    GPU_RESOURCE,
    LABEL_PREFIX,
    SPOT_TAINT_KEY,
    Autoscaling,
    GpuSharing,
    GuestAccelerator,
    NodePoolPlan,
    Placement,
    Taint,
)
from gke_accel.model.pools.spec import GpuPoolSpec
from gke_accel.model.pools.zone_check import check_pool_zones


@dataclass(frozen=True)
class _Hardware:
    machine_type: str
    model: GpuModel
    count: int


def _resolve_machine(spec: GpuPoolSpec, path: str, catalog: Catalog, issues: IssueCollector) -> _Hardware | None:
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
        fixed = catalog.gpu_machines.get(spec.machine_type)
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
            return _Hardware(fixed.machine_type, fixed_model, fixed.count)
        host = n1_shape(spec.machine_type, catalog.n1_shapes)
        if isinstance(host, str):
            if model is not None and model.attach == "fixed":
                valid = [m.machine_type for m in catalog.machines_for_gpu(model.accelerator_type)]
            elif model is not None:
                valid = ["n1-standard-*", "n1-highmem-*", "n1-highcpu-*", "custom-<vCPU>-<MB>"]
            else:
                valid = [*list(catalog.gpu_machines), "an N1 machine type"]
            what = host if host.startswith("is a shared-core") else "is not a GPU machine type"
            issues.bad(f"{path}.machine_type", spec.machine_type, what, valid)
            return None
        if model is None or model.attach != "n1":
            n1_models = [m.aliases[0] for m in catalog.gpu_models.values() if m.attach == "n1"]
            issues.bad(f"{path}.gpu", spec.gpu, f"must name a GPU that attaches to {host.machine_type}", n1_models)
            return None
        count = spec.gpus_per_node or 1
        limits = catalog.n1_limits[model.accelerator_type]
        limit = limits.get(count)
        if limit is None:
            issues.bad(f"{path}.gpus_per_node", count, f"is not valid for {model.accelerator_type}", sorted(limits))
            return None
        if host.vcpu > limit.max_vcpu or host.memory_gb > limit.max_memory_gb:
            fits = [
                h
                for h, n in catalog.n1_hosts.items()
                if n.vcpu <= limit.max_vcpu and n.memory_gb <= limit.max_memory_gb
            ]
            issues.bad(
                f"{path}.machine_type",
                spec.machine_type,
                f"is too large for {count} x {model.accelerator_type} "
                f"(at most {limit.max_vcpu} vCPU and {limit.max_memory_gb} GB)",
                [*fits, "or any smaller N1 shape"],
            )
            return None
        return _Hardware(host.machine_type, model, count)

    if model is None:
        issues.bad(f"{path}.gpu", None, "is required when machine_type is not given", catalog.gpu_names())
        return None
    count = spec.gpus_per_node or 1
    if model.attach == "n1":
        limits = catalog.n1_limits[model.accelerator_type]
        if count not in limits:
            issues.bad(f"{path}.gpus_per_node", count, f"is not valid for {model.accelerator_type}", sorted(limits))
            return None
        return _Hardware(catalog.n1_default_host[count], model, count)
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
    return _Hardware(match[0].machine_type, model, count)


def _sharing(spec: GpuPoolSpec, path: str, catalog: Catalog, issues: IssueCollector) -> GpuSharing | None:
    if spec.sharing is None:
        return None
    limit = catalog.max_shared_clients_per_gpu
    if not 2 <= spec.sharing.max_clients <= limit:
        issues.bad(f"{path}.sharing.max_clients", spec.sharing.max_clients, "is out of range", f"2 to {limit}")
    strategy: Literal["TIME_SHARING", "MPS"] = "TIME_SHARING" if spec.sharing.strategy == "time-sharing" else "MPS"
    return GpuSharing(strategy, spec.sharing.max_clients)


DriverVersion = Literal["DEFAULT", "LATEST", "INSTALLATION_DISABLED"]


def driver_variant(spec: GpuPoolSpec) -> str:
    """The driver installer variant a daemonset-mode pool needs, e.g. ``cos-default``, ``ubuntu-r570``."""
    os_name = "cos" if spec.image_type.startswith("COS") else "ubuntu"
    return f"{os_name}-{spec.driver_version.lower()}"


def _driver(
    spec: GpuPoolSpec, hw: _Hardware | None, path: str, catalog: Catalog, issues: IssueCollector
) -> DriverVersion:
    """GKE's gpu_driver_version for the pool, and the driver rules: LATEST only on COS; pinned
    branches only through the Ubuntu DaemonSet; the DaemonSet path disables GKE's installer."""
    cos = spec.image_type in catalog.latest_driver_image_types
    pinned = sorted(catalog.driver_installer.ubuntu_pinned)
    where = f"{path}.driver_version"
    if spec.driver_mode == "gke-managed":
        if spec.driver_version == "latest" and not cos:
            issues.bad(
                where,
                "latest",
                f"needs a COS image, the pool uses {spec.image_type}",
                ["default", "latest with image_type COS_CONTAINERD"],
            )
        elif spec.driver_version in pinned:
            issues.bad(
                where,
                spec.driver_version,
                "is a pinned driver branch: it needs driver_mode 'daemonset' with image_type UBUNTU_CONTAINERD",
                ["default", "latest"],
            )
        elif spec.driver_version not in ("default", "latest"):
            issues.bad(where, spec.driver_version, "is not a GKE driver version", ["default", "latest"])
        return "LATEST" if spec.driver_version == "latest" else "DEFAULT"
    valid = ["default", "latest"] if cos else ["default", *pinned]
    if spec.driver_version not in valid:
        why = (
            "'latest' is a COS installer option; Ubuntu pins a branch"
            if spec.driver_version == "latest"
            else f"is not a driver version of the {'COS' if cos else 'Ubuntu'} installer DaemonSet"
        )
        issues.bad(
            where, spec.driver_version, why if spec.driver_version != "latest" else f"is not possible: {why}", valid
        )
    if hw is not None and hw.model.accelerator_type in catalog.driver_installer.unsupported_models:
        issues.bad(
            f"{path}.driver_mode",
            "daemonset",
            f"has no installer variant here for {hw.model.accelerator_type}",
            ["gke-managed"],
        )
    if spec.partition_size is not None and not cos:
        issues.bad(
            f"{path}.partition_size",
            spec.partition_size,
            "needs the COS installer's GPU partitioner: the Ubuntu DaemonSet has none",
            "image_type COS_CONTAINERD, or driver_mode gke-managed",
        )
    if spec.partition_size is not None and spec.sharing is not None:
        issues.bad(
            f"{path}.sharing",
            spec.sharing.strategy,
            "cannot be combined with MIG partitions made by the driver DaemonSet on one pool",
            "no sharing, or driver_mode gke-managed (GKE supports time-sharing on MIG partitions)",
        )
    return "INSTALLATION_DISABLED"


def plan_gpu_pool(
    spec: GpuPoolSpec,
    *,
    region: str,
    cluster_zones: tuple[str, ...],
    path: str = "gpu_pool",
    issues: IssueCollector | None = None,
    catalog: Catalog | None = None,
) -> list[NodePoolPlan]:
    """Derive the node pool for one GPU spec. Raises ConfigError unless ``issues`` is given."""
    own = issues is None
    issues = issues if issues is not None else IssueCollector()
    catalog = catalog or load_catalog()
    before = len(issues.issues)

    check_pool_name(spec.name, f"{path}.name", issues)
    check_node_labels(spec.labels, f"{path}.labels", issues)
    check_disk(f"{path}.disk_size_gb", spec.disk_size_gb, issues)
    hw = _resolve_machine(spec, path, catalog, issues)
    consumption = plan_consumption(spec.consumption, f"{path}.consumption", issues)

    zones = spec.zones or cluster_zones
    check_zones(spec.zones, region, f"{path}.zones", issues)
    if hw is not None and all(ZONE.fullmatch(z) and region_of(z) == region for z in zones):
        check_pool_zones(
            catalog.zones,
            "gpu",
            hw.model.accelerator_type,
            hw.model.accelerator_type,
            zones,
            region=region,
            path=f"{path}.zones",
            inherited_from=None if spec.zones else "cluster.node_zones",
            allow_unlisted=spec.allow_unlisted_zone,
            issues=issues,
        )
    if spec.placement == "compact" and len(zones) != 1:
        issues.bad(
            f"{path}.placement",
            "compact",
            f"needs exactly one zone, the pool has {len(zones)}",
            "set zones to a single zone, or placement: none",
        )
    if spec.placement == "compact" and consumption.queued:
        issues.bad(f"{path}.placement", "compact", "cannot be used with queued provisioning on GPUs", ["none"])
    families = catalog.flex_start_compact_families
    compact_flex = spec.placement == "compact" and consumption.flex_start
    if compact_flex and hw is not None and not hw.machine_type.startswith(families):
        issues.bad(
            f"{path}.placement",
            "compact",
            f"cannot be combined with flex-start on {hw.machine_type}",
            f"placement: none, or a machine of {', '.join(f + '*' for f in families)}",
        )

    if spec.partition_size is not None and hw is not None:
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
    sharing = _sharing(spec, path, catalog, issues)

    driver_version = _driver(spec, hw, path, catalog, issues)

    per_zone_cap = MAX_NODES_PER_POOL_ZONE * max(1, len(zones))
    if spec.node_count is not None:
        if spec.node_count > MAX_NODES_PER_POOL_ZONE:
            issues.bad(
                f"{path}.node_count",
                spec.node_count,
                "is more than GKE allows",
                f"0 to {MAX_NODES_PER_POOL_ZONE} per zone",
            )
        if spec.min_nodes is not None or spec.max_nodes is not None:
            issues.bad(
                f"{path}.node_count",
                spec.node_count,
                "cannot be combined with min_nodes/max_nodes",
                "either node_count (static) or min_nodes/max_nodes (autoscaling)",
            )
        if spec.node_count < 0:
            issues.bad(f"{path}.node_count", spec.node_count, "is out of range", "0 or more")
        if consumption.flex_start or consumption.queued:
            issues.bad(
                f"{path}.node_count",
                spec.node_count,
                f"is not allowed with consumption {spec.consumption.type!r}: those pools must autoscale",
                "min_nodes/max_nodes",
            )
    low = spec.min_nodes if spec.min_nodes is not None else 0
    high = spec.max_nodes if spec.max_nodes is not None else max(1, low)
    if spec.node_count is None:
        if low < 0 or low > high:
            issues.bad(f"{path}.min_nodes", low, "is out of range", f"0 to max_nodes ({high})")
        if high < 1:
            issues.bad(f"{path}.max_nodes", high, "is out of range", "1 or more")
        elif high > per_zone_cap:
            issues.bad(
                f"{path}.max_nodes",
                high,
                f"is more than GKE allows for {max(1, len(zones))} zone(s)",
                f"at most {MAX_NODES_PER_POOL_ZONE} nodes per zone: {per_zone_cap}",
            )
        if consumption.queued and low != 0:
            issues.bad(f"{path}.min_nodes", low, "must be 0 with queued provisioning", "0")

    if len(issues.issues) > before or hw is None:
        if own:
            issues.raise_if_any()
        return []

    taints = [Taint(GPU_RESOURCE, "present")]
    if consumption.spot:
        taints.append(Taint(SPOT_TAINT_KEY, "true"))
    labels = {
        f"{LABEL_PREFIX}/pool": spec.name,
        f"{LABEL_PREFIX}/accelerator": hw.model.accelerator_type,
        **spec.labels,
    }
    if spec.driver_mode == "daemonset":  # the installer DaemonSet for this variant selects these nodes
        labels[DRIVER_VARIANT_LABEL] = driver_variant(spec)
    autoscaling = None if spec.node_count is not None else Autoscaling(low, high, False, consumption.location_policy)
    return [
        NodePoolPlan(
            name=spec.name,
            kind="gpu",
            machine_type=hw.machine_type,
            accelerator=hw.model.accelerator_type,
            chips_per_node=hw.count,
            zones=zones,
            autoscaling=autoscaling,
            node_count=spec.node_count,
            initial_node_count=None,
            spot=consumption.spot,
            flex_start=consumption.flex_start,
            queued=consumption.queued,
            reservation=consumption.reservation,
            auto_repair=consumption.auto_repair,
            max_run_duration_seconds=consumption.max_run_duration_seconds,
            placement=Placement(compact=True) if spec.placement == "compact" else None,
            guest_accelerator=GuestAccelerator(
                type=hw.model.accelerator_type,
                count=hw.count,
                driver_version=driver_version,
                partition_size=spec.partition_size,
                sharing=sharing,
            ),
            image_type=spec.image_type,
            disk_size_gb=spec.disk_size_gb,
            labels=labels,
            taints=tuple(taints),
            driver_mode=spec.driver_mode,
        )
    ]
