"""CPU pools (``cpu_pools``): general-purpose nodes for pods that ask for no accelerator.

Without one, such pods have nowhere to run: the system pool is tainted
``components.gke.io/gke-managed-components`` (for GKE's and the platform's controllers) and every
accelerator pool by its accelerator (code review R3). A CPU pool is untainted (unless Spot), so the
scheduler puts CPU-only pods there and accelerator pods stay on their tainted pools.
"""

from __future__ import annotations

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.labels import check_node_labels
from gke_accel.model.core.limits import MAX_NODES_PER_POOL_ZONE, check_disk, check_range
from gke_accel.model.core.names import GCE_NAME, GCE_NAME_HELP
from gke_accel.model.pools.node_pool import POOL_LABEL, SPOT_TAINT_KEY, Autoscaling, NodePoolPlan, Reservation, Taint
from gke_accel.model.pools.spec import CpuPoolSpec


def plan_cpu_pool(
    spec: CpuPoolSpec,
    *,
    cluster_zones: tuple[str, ...],
    path: str = "cpu_pool",
    issues: IssueCollector | None = None,
    catalog: Catalog | None = None,
) -> NodePoolPlan | None:
    """The pool's plan, or None (and issues) when the spec has a mistake."""
    own = issues is None
    issues = issues if issues is not None else IssueCollector()
    catalog = catalog or load_catalog()
    before = len(issues.issues)
    if not GCE_NAME.fullmatch(spec.name):
        issues.bad(f"{path}.name", spec.name, "is not a valid node pool name", GCE_NAME_HELP)
    machine = spec.machine_type or catalog.default_cpu_machine
    if machine not in catalog.general_machines:
        issues.bad(f"{path}.machine_type", machine, "is not a general-purpose machine the catalog knows",
                   sorted(catalog.general_machines))  # fmt: skip
    zones = spec.zones or cluster_zones
    for i, zone in enumerate(spec.zones):
        if zone not in cluster_zones:
            issues.bad(f"{path}.zones[{i}]", zone, "is not one of the cluster's node zones", list(cluster_zones))
    cap = MAX_NODES_PER_POOL_ZONE * max(1, len(zones))
    if check_range(f"{path}.max_nodes", spec.max_nodes, 1, cap, issues):
        check_range(f"{path}.min_nodes", spec.min_nodes, 0, spec.max_nodes, issues, "max_nodes")
    check_disk(f"{path}.disk_size_gb", spec.disk_size_gb, issues)
    check_node_labels(spec.labels, f"{path}.labels", issues)
    if len(issues.issues) > before:
        if own:
            issues.raise_if_any()
        return None
    spot = spec.consumption == "spot"
    return NodePoolPlan(
        name=spec.name,
        kind="cpu",
        machine_type=machine,
        accelerator="",
        chips_per_node=0,
        zones=tuple(zones),
        autoscaling=Autoscaling(spec.min_nodes, spec.max_nodes, False, "ANY" if spot else "BALANCED"),
        node_count=None,
        initial_node_count=None,
        spot=spot,
        flex_start=False,
        queued=False,
        reservation=Reservation("NO_RESERVATION") if spot else None,
        auto_repair=True,
        max_run_duration_seconds=None,
        placement=None,
        guest_accelerator=None,
        image_type="COS_CONTAINERD",
        disk_size_gb=spec.disk_size_gb,
        labels={**spec.labels, POOL_LABEL: spec.name},
        taints=(Taint(SPOT_TAINT_KEY, "true"),) if spot else (),
    )
