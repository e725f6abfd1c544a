"""Cluster-level rules: names, locations, networks, maintenance window, auto-provisioning."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.cluster.access import check_control_plane_access
from gke_accel.model.cluster.identity import node_service_account_id
from gke_accel.model.cluster.maintenance import check_maintenance
from gke_accel.model.cluster.spec import ClusterSpec
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.limits import MAX_NODES_PER_POOL_ZONE, check_disk, check_range
from gke_accel.model.core.names import (
    CLUSTER_NAME,
    GCE_NAME,
    GCE_NAME_HELP,
    REGION,
    ZONE,
    check_labels,
    check_zones,
    region_of,
)
from gke_accel.model.pools.node_pool import POOL_LABEL, SYSTEM_TAINT_KEY, Autoscaling, NodePoolPlan, Taint


@dataclass(frozen=True)
class ClusterPlan:
    spec: ClusterSpec
    regional: bool
    node_zones: tuple[str, ...]
    nap_limits: dict[str, int]  # NAP resource type (accelerator label) -> max chips

    @property
    def node_service_account_id(self) -> str:
        return node_service_account_id(self.spec.name)

    @property
    def security_posture_mode(self) -> str:
        """GKE's ``SecurityPostureConfig.mode`` for ``cluster.security_posture``: BASIC or DISABLED."""
        return self.spec.security_posture.upper()

    @property
    def system_pool(self) -> NodePoolPlan:
        """The small pool for GKE system pods, tainted so only they (and tolerating pods) land there."""
        sp = self.spec.system_pool
        return NodePoolPlan(
            name="system",
            kind="system",
            machine_type=sp.machine_type,
            accelerator="",
            chips_per_node=0,
            zones=self.node_zones,
            autoscaling=Autoscaling(sp.min_nodes, sp.max_nodes, False, "BALANCED"),
            node_count=None,
            initial_node_count=None,
            spot=False,
            flex_start=False,
            queued=False,
            reservation=None,
            auto_repair=True,
            max_run_duration_seconds=None,
            placement=None,
            guest_accelerator=None,
            image_type="COS_CONTAINERD",
            disk_size_gb=sp.disk_size_gb,
            labels={POOL_LABEL: "system"},
            taints=(Taint(SYSTEM_TAINT_KEY, "true"),),
        )


def _cidr(value: str, path: str, issues: IssueCollector) -> ipaddress.IPv4Network | None:
    try:
        net = ipaddress.ip_network(value, strict=True)
    except ValueError:
        issues.bad(path, value, "is not a valid IPv4 CIDR range", "e.g. 10.10.0.0/20")
        return None
    if not isinstance(net, ipaddress.IPv4Network):
        issues.bad(path, value, "is not an IPv4 range", "e.g. 10.10.0.0/20")
        return None
    return net


def _check_network(spec: ClusterSpec, issues: IssueCollector) -> None:
    net = spec.network
    path = "cluster.network"
    if not net.create and (not net.network or not net.subnetwork):
        issues.bad(
            f"{path}.create", False, "needs existing 'network' and 'subnetwork' names", "create: true, or both names"
        )
    if net.create and (net.network or net.subnetwork):
        issues.bad(
            f"{path}.network",
            net.network or net.subnetwork,
            "names an existing network but create is true",
            "create: false with names, or create: true without them",
        )
    for name in ("network", "subnetwork", "pods_range_name", "services_range_name"):
        value = getattr(net, name)
        if value is not None and not GCE_NAME.fullmatch(value):
            issues.bad(f"{path}.{name}", value, "is not a valid Compute Engine name", GCE_NAME_HELP)
    ranges = {
        "subnet_cidr": _cidr(net.subnet_cidr, f"{path}.subnet_cidr", issues),
        "pods_cidr": _cidr(net.pods_cidr, f"{path}.pods_cidr", issues),
        "services_cidr": _cidr(net.services_cidr, f"{path}.services_cidr", issues),
        "master_cidr": _cidr(net.master_cidr, f"{path}.master_cidr", issues),
    }
    master = ranges["master_cidr"]
    if master is not None and master.prefixlen != 28:
        issues.bad(f"{path}.master_cidr", net.master_cidr, "must be a /28 range", "e.g. 172.16.0.0/28")
    names = list(ranges)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ra, rb = ranges[a], ranges[b]
            if ra is not None and rb is not None and ra.overlaps(rb):
                issues.bad(f"{path}.{b}", str(rb), f"overlaps {a} ({ra})", "non-overlapping ranges")
    for i, entry in enumerate(spec.master_authorized_networks):
        _cidr(entry.cidr, f"cluster.master_authorized_networks[{i}].cidr", issues)


def _nap_limits(spec: ClusterSpec, catalog: Catalog, issues: IssueCollector) -> dict[str, int]:
    limits: dict[str, int] = {}
    nap = spec.auto_provisioning
    for name, chips in nap.accelerators.items():
        path = f"cluster.auto_provisioning.accelerators.{name}"
        gen = catalog.tpu_generations.get(name)
        model = catalog.gpu_model(name)
        resource_type = gen.label if gen is not None else model.accelerator_type if model is not None else None
        if resource_type is None:
            issues.bad(
                path, name, "is not a GPU model or TPU generation", catalog.gpu_names() + list(catalog.tpu_generations)
            )
            continue
        if chips < 0:
            issues.bad(path, chips, "is out of range", "0 or more")
        limits[resource_type] = chips
    if nap.enabled:
        check_range("cluster.auto_provisioning.max_cpu", nap.max_cpu, 1, 2**31 - 1, issues)
        check_range("cluster.auto_provisioning.max_memory_gb", nap.max_memory_gb, 1, 2**31 - 1, issues)
    if nap.accelerators and not nap.enabled:
        issues.bad("cluster.auto_provisioning.enabled", False, "must be true when accelerator limits are set", ["true"])
    return limits


_DOMAIN_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
RBAC_GROUP = re.compile(rf"gke-security-groups@{_DOMAIN_LABEL}(?:\.{_DOMAIN_LABEL})+")


def _check_zones_exist(
    zones: tuple[str, ...], region: str, path: str, catalog: Catalog, issues: IssueCollector
) -> None:
    """Zones of a region the zone data knows must be among its zones (the system pool runs there);
    a region the data does not know yet gets a warning (catalog/zones.yaml, docs/zones.md)."""
    facts = catalog.zones
    known = sorted(z for z in facts.standard_zones | facts.tpu_only_zones if region_of(z) == region)
    for i, zone in enumerate(zones):
        where = f"{path}[{i}]" if path.endswith("node_zones") else path
        if not ZONE.fullmatch(zone) or region_of(zone) != region or zone in facts.ai_zones:
            continue
        if not known:
            issues.warn(where, f"{zone}: region {region} is not in the zone data as of {facts.as_of}")
        elif zone not in known:
            issues.bad(where, zone, f"is not a zone of {region} (zone data as of {facts.as_of})", known)


def plan_cluster(
    spec: ClusterSpec, *, region: str, issues: IssueCollector | None = None, catalog: Catalog | None = None
) -> ClusterPlan:
    own = issues is None
    issues = issues if issues is not None else IssueCollector()
    catalog = catalog or load_catalog()
    if not CLUSTER_NAME.fullmatch(spec.name):
        issues.bad(
            "cluster.name",
            spec.name,
            "is not a valid cluster name",
            "lowercase letters, digits and '-', starting with a letter, at most 40 characters",
        )
    regional = bool(REGION.fullmatch(spec.location))
    zonal = bool(ZONE.fullmatch(spec.location))
    # an invalid region is reported where it is given: no suggestions built from it here
    region_ok = bool(REGION.fullmatch(region))
    if not region_ok:
        region = spec.location if regional else region_of(spec.location) if zonal else region
    if not (regional or zonal) or (region_ok and spec.location != region and region_of(spec.location) != region):
        issues.bad(
            "cluster.location",
            spec.location,
            f"is not region {region} or one of its zones",
            f"{region}, {region}-a, ...",
        )
    if region_ok or regional or zonal:
        check_zones(spec.node_zones, region, "cluster.node_zones", issues)
    node_zones = spec.node_zones or ((spec.location,) if zonal else ())
    group = spec.rbac_security_group
    if group is not None and not RBAC_GROUP.fullmatch(group):
        issues.bad(
            "cluster.rbac_security_group",
            group,
            "is not a Google Groups for RBAC group (GKE requires the name gke-security-groups)",
            "gke-security-groups@<your domain>",
        )
    zones_path = "cluster.node_zones" if spec.node_zones else "cluster.location"
    if region_ok or regional or zonal:
        _check_zones_exist(node_zones, region, zones_path, catalog, issues)
    if regional and not spec.node_zones:
        issues.bad(
            "cluster.node_zones",
            [],
            "must list the zones for nodes of a regional cluster (accelerators are zonal)",
            f"e.g. [{region}-a, {region}-b]",
        )
    check_labels(spec.labels, "cluster.labels", issues)
    sp = spec.system_pool
    if check_range("cluster.system_pool.max_nodes", sp.max_nodes, 1, MAX_NODES_PER_POOL_ZONE, issues):
        check_range("cluster.system_pool.min_nodes", sp.min_nodes, 0, sp.max_nodes, issues, "max_nodes")
    check_disk("cluster.system_pool.disk_size_gb", sp.disk_size_gb, issues)
    _check_network(spec, issues)
    check_control_plane_access(spec, issues)
    check_maintenance(spec.maintenance, issues)
    nap = _nap_limits(spec, catalog, issues)
    if own:
        issues.raise_if_any()
    return ClusterPlan(spec=spec, regional=regional, node_zones=node_zones, nap_limits=nap)
