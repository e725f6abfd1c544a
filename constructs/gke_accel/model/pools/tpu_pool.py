"""TPU slice pools: generation + topology in, validated node pools out (rules T1-T14, C2-C19)."""

from __future__ import annotations

from dataclasses import replace

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.labels import check_node_labels
from gke_accel.model.core.limits import check_disk
from gke_accel.model.core.names import ZONE, check_pool_name, check_zones, region_of
from gke_accel.model.core.props import normalized
from gke_accel.model.pools.consumption import plan_consumption
from gke_accel.model.pools.node_pool import (
    LABEL_PREFIX,
    POOL_LABEL,
    SPOT_TAINT_KEY,
    TPU_RESOURCE,
    Autoscaling,
    NodePoolPlan,
    Placement,
    Taint,
)
from gke_accel.model.pools.spec import TpuPoolSpec
from gke_accel.model.pools.topology import (
    SliceShape,
    allowed_chips_per_vm,
    example_topologies,
    slice_shape,
    topology_problem,
)
from gke_accel.model.pools.zone_check import check_pool_zones, offered_zones, zone_verdict

MAX_SLICES = 64


def _shape(spec: TpuPoolSpec, path: str, catalog: Catalog, issues: IssueCollector) -> SliceShape | None:
    gen = catalog.tpu_generations.get(spec.generation)
    if gen is None:
        issues.bad(f"{path}.generation", spec.generation, "is not a known TPU generation", catalog.tpu_generations)
        return None
    problem = topology_problem(gen, spec.topology, catalog)
    if problem:
        issues.bad(f"{path}.topology", spec.topology, problem, example_topologies(gen, catalog))
        return None
    allowed = allowed_chips_per_vm(gen, spec.topology, catalog)
    if spec.machine_type is None:
        return slice_shape(gen, spec.topology, allowed[0])
    chips = gen.machine_types.get(spec.machine_type)
    if chips is None or chips not in allowed:
        valid = [m for m, c in gen.machine_types.items() if c in allowed]
        issues.bad(f"{path}.machine_type", spec.machine_type, f"cannot run a {gen.name} {spec.topology} slice", valid)
        return None
    return slice_shape(gen, spec.topology, chips)


def plan_tpu_pool(
    spec: TpuPoolSpec,
    *,
    region: str,
    cluster_zones: tuple[str, ...],
    path: str = "tpu_pool",
    issues: IssueCollector | None = None,
    catalog: Catalog | None = None,
) -> list[NodePoolPlan]:
    """Derive the node pools for one TPU slice spec: one pool for single-host slices,
    one atomic pool per slice for multi-host slices. Raises ConfigError unless ``issues`` is given."""
    own = issues is None
    issues = issues if issues is not None else IssueCollector()
    catalog = catalog or load_catalog()
    before = len(issues.issues)
    given = normalized(TpuPoolSpec, spec, path, issues)  # built in Python: the same parse as YAML (consumption="spot")
    if given is None:
        if own:
            issues.raise_if_any()
        return []
    spec = given

    check_pool_name(spec.name, f"{path}.name", issues)
    check_node_labels(spec.labels, f"{path}.labels", issues)
    if spec.min_slices < 0 or spec.min_slices > spec.max_slices:
        issues.bad(f"{path}.min_slices", spec.min_slices, "is out of range", f"0 to max_slices ({spec.max_slices})")
    if not 1 <= spec.max_slices <= MAX_SLICES:
        issues.bad(f"{path}.max_slices", spec.max_slices, "is out of range", f"1 to {MAX_SLICES}")
    check_disk(f"{path}.disk_size_gb", spec.disk_size_gb, issues)
    consumption = plan_consumption(spec.consumption, f"{path}.consumption", issues)
    shape = _shape(spec, path, catalog, issues)
    zones: tuple[str, ...] = ()
    if shape is not None:
        gen = catalog.tpu_generations[spec.generation]
        facts = catalog.zones
        if spec.zone is not None:
            check_zones((spec.zone,), region, f"{path}.zone", issues)
            if ZONE.fullmatch(spec.zone) and region_of(spec.zone) == region:
                check_pool_zones(
                    facts,
                    "tpu",
                    gen.name,
                    gen.name,
                    (spec.zone,),
                    region=region,
                    path=f"{path}.zone",
                    inherited_from=None,
                    allow_unlisted=spec.allow_unlisted_zone,
                    issues=issues,
                    scalar=True,
                )
            zones = (spec.zone,)
        elif shape.multi_host:
            offered = offered_zones(facts, "tpu", gen.name, region) or list(gen.zones)
            issues.bad(
                f"{path}.zone",
                None,
                f"is required: a multi-host {gen.name} slice ({shape.vms} VMs) runs in one zone",
                offered,
            )
        else:  # inherit the cluster zones where the generation is not known to be missing
            verdicts = [zone_verdict(facts, "tpu", gen.name, z, gen.name) for z in cluster_zones]
            usable = [v for v in verdicts if v.level != "error" or spec.allow_unlisted_zone]
            zones = tuple(v.zone for v in usable)
            if not zones:
                issues.bad(
                    f"{path}.zone",
                    None,
                    f"is required: no cluster zone offers {gen.name} TPUs (zone data as of {facts.as_of})",
                    offered_zones(facts, "tpu", gen.name, region) or gen.zones,
                )
            check_pool_zones(
                facts,
                "tpu",
                gen.name,
                gen.name,
                zones,
                region=region,
                path=f"{path}.zone",
                inherited_from="cluster.node_zones",
                allow_unlisted=spec.allow_unlisted_zone,
                issues=issues,
            )
        if consumption.flex_start and not consumption.queued and shape.multi_host:
            issues.bad(
                f"{path}.consumption.type",
                "flex-start",
                f"is only available for single-host TPU slices, and {spec.topology} needs {shape.vms} VMs",
                "on-demand, spot, reservation, queued",
            )
        if consumption.queued and spec.min_slices != 0:
            issues.bad(f"{path}.min_slices", spec.min_slices, "must be 0 with queued provisioning", "0")
    if len(issues.issues) > before or shape is None:
        if own:
            issues.raise_if_any()
        return []

    gen = catalog.tpu_generations[spec.generation]
    taints = [Taint(TPU_RESOURCE, "present")]
    if consumption.spot:
        taints.append(Taint(SPOT_TAINT_KEY, "true"))
    labels = {
        POOL_LABEL: spec.name,
        f"{LABEL_PREFIX}/accelerator": gen.label,
        f"{LABEL_PREFIX}/tpu-topology": spec.topology,
        **spec.labels,
    }
    single = NodePoolPlan(
        name=spec.name,
        kind="tpu",
        machine_type=shape.machine_type,
        accelerator=gen.label,
        chips_per_node=shape.chips_per_vm,
        zones=zones,
        autoscaling=Autoscaling(spec.min_slices, spec.max_slices, False, consumption.location_policy),
        node_count=None,
        initial_node_count=None,
        spot=consumption.spot,
        flex_start=consumption.flex_start,
        queued=consumption.queued,
        reservation=consumption.reservation,
        auto_repair=consumption.auto_repair,
        max_run_duration_seconds=consumption.max_run_duration_seconds,
        placement=None,  # T10/T11: no placement policy or topology on single-host slices
        guest_accelerator=None,
        image_type="COS_CONTAINERD",
        disk_size_gb=spec.disk_size_gb,
        labels=labels,
        taints=tuple(taints),
        tpu_topology=spec.topology,
        tpu_generation=gen.name,
        slice_name=gen.slice_name(shape.chips),
    )
    if not shape.multi_host:
        return [single]
    placement = Placement(
        compact=gen.multihost_placement == "compact",
        tpu_topology=spec.topology,
        workload_policy=gen.multihost_placement == "workload_policy",
    )
    # One atomic pool per slice (T13/T14), with per-zone bounds in whole slices (T12).
    return [
        replace(
            single,
            name=spec.name if spec.max_slices == 1 else f"{spec.name}-s{index}",
            autoscaling=Autoscaling(shape.vms if index < spec.min_slices else 0, shape.vms, True, "ANY"),
            initial_node_count=shape.vms if index < spec.min_slices else 0,
            placement=placement,
            labels={**labels, f"{LABEL_PREFIX}/slice": str(index)},
            slice_index=index,
        )
        for index in range(spec.max_slices)
    ]
