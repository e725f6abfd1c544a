"""NVIDIA GPU pools: a GPU model and count (or a machine type) in, a validated node pool out.

The machine comes from ``gpu_machine``, the driver from ``gpu_driver``, MIG and sharing from
``gpu_partition``; this module checks where and how large the pool is and builds its plan."""

from __future__ import annotations

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.labels import check_node_labels
from gke_accel.model.core.limits import MAX_NODES_PER_POOL_ZONE, check_disk
from gke_accel.model.core.names import ZONE, check_pool_name, check_zones, region_of
from gke_accel.model.core.props import normalized
from gke_accel.model.pools.consumption import ConsumptionPlan, plan_consumption
from gke_accel.model.pools.gpu_driver import DriverVersion, driver_variant, plan_driver
from gke_accel.model.pools.gpu_machine import GpuHardware, resolve_machine
from gke_accel.model.pools.gpu_partition import check_partition, plan_sharing
from gke_accel.model.pools.node_pool import (
    DRIVER_VARIANT_LABEL,
    GPU_RESOURCE,
    GPU_UNIT_LABEL,
    LABEL_PREFIX,
    POOL_LABEL,
    SPLIT_GPU_TAINT_KEY,
    SPOT_TAINT_KEY,
    WHOLE_GPU,
    Autoscaling,
    GpuSharing,
    GuestAccelerator,
    NodePoolPlan,
    Placement,
    Taint,
    gpu_split,
)
from gke_accel.model.pools.spec import GpuPoolSpec
from gke_accel.model.pools.zone_check import check_pool_zones


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
    given = normalized(GpuPoolSpec, spec, path, issues)  # built in Python: the same parse as YAML (consumption="spot")
    if given is None:
        if own:
            issues.raise_if_any()
        return []
    spec = given

    check_pool_name(spec.name, f"{path}.name", issues)
    check_node_labels(spec.labels, f"{path}.labels", issues)
    check_disk(f"{path}.disk_size_gb", spec.disk_size_gb, issues)
    hw = resolve_machine(spec, path, catalog, issues)
    consumption = plan_consumption(spec.consumption, f"{path}.consumption", issues)
    zones = spec.zones or cluster_zones
    _check_location(spec, hw, consumption, zones, region, path, catalog, issues)
    if hw is not None:
        check_partition(spec, hw, path, catalog, issues)
    sharing = plan_sharing(spec, path, catalog, issues)
    driver_version = plan_driver(spec, hw, path, catalog, issues)
    low, high = _check_size(spec, consumption, zones, path, issues)

    if len(issues.issues) > before or hw is None:
        if own:
            issues.raise_if_any()
        return []
    return [_node_pool(spec, hw, consumption, zones, low, high, sharing, driver_version)]


def _check_location(
    spec: GpuPoolSpec,
    hw: GpuHardware | None,
    consumption: ConsumptionPlan,
    zones: tuple[str, ...],
    region: str,
    path: str,
    catalog: Catalog,
    issues: IssueCollector,
) -> None:
    """Zones that offer the GPU, and compact placement (one zone; not with queued provisioning; with
    flex-start only on the machine families that allow it)."""
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
    compact_flex = spec.placement == "compact" and consumption.flex_start and not consumption.queued
    if compact_flex and hw is not None and not hw.machine_type.startswith(families):
        issues.bad(
            f"{path}.placement",
            "compact",
            f"cannot be combined with flex-start on {hw.machine_type}",
            f"placement: none, or a machine of {', '.join(f + '*' for f in families)}",
        )


def _check_size(
    spec: GpuPoolSpec, consumption: ConsumptionPlan, zones: tuple[str, ...], path: str, issues: IssueCollector
) -> tuple[int, int]:
    """A static ``node_count`` or ``min_nodes``/``max_nodes`` within GKE's per-zone limit; queued and
    flex-start pools must autoscale (queued from 0). Returns the autoscaling bounds."""
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
    return low, high


def split_gpu(partition_size: str | None, sharing: GpuSharing | None) -> str:
    """The value of the ``SPLIT_GPU_TAINT_KEY`` taint on nodes whose GPUs are MIG partitions or shared
    (``1g.10gb``, ``time-sharing``, ``mps``, ``1g.10gb-time-sharing``); empty for whole GPUs."""
    parts = [partition_size or "", sharing.strategy_label if sharing else ""]
    return "-".join(p for p in parts if p)


def _node_pool(
    spec: GpuPoolSpec,
    hw: GpuHardware,
    consumption: ConsumptionPlan,
    zones: tuple[str, ...],
    low: int,
    high: int,
    sharing: GpuSharing | None,
    driver_version: DriverVersion,
) -> NodePoolPlan:
    taints = [Taint(GPU_RESOURCE, "present")]
    if consumption.spot:
        taints.append(Taint(SPOT_TAINT_KEY, "true"))
    split = split_gpu(spec.partition_size, sharing)
    if split:  # a whole-GPU pod's selector (the GPU model) also matches these nodes: keep it off them
        taints.append(Taint(SPLIT_GPU_TAINT_KEY, split))
    labels = {
        POOL_LABEL: spec.name,
        f"{LABEL_PREFIX}/accelerator": hw.model.accelerator_type,
        **spec.labels,
        # what one nvidia.com/gpu of these nodes is: every GPU flavor selects it (node_pool.GPU_UNIT_LABEL)
        GPU_UNIT_LABEL: gpu_split(spec.partition_size, sharing) or WHOLE_GPU,
    }
    if spec.driver_mode == "daemonset":  # the installer DaemonSet for this variant selects these nodes
        labels[DRIVER_VARIANT_LABEL] = driver_variant(spec)
    autoscaling = None if spec.node_count is not None else Autoscaling(low, high, False, consumption.location_policy)
    return NodePoolPlan(
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


__all__ = ["DriverVersion", "driver_variant", "plan_gpu_pool"]
