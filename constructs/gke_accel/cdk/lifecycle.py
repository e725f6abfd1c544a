"""Renders the lifecycle posture (model/lifecycle/) onto the cluster and node pool resources.

Fields the provider bindings may lack are overrides, so both frameworks synthesize the same JSON:
cdktf 0.21's google 6.50 (``disruption_budget``, ``exclusion_options.end_time_behavior``) and cdktn's
(``node_config.host_maintenance_policy``). ``make validate-terraform`` checks it against google 8.0.0."""

from __future__ import annotations

from typing import Any

from gke_accel.cdk._framework import TerraformResource
from gke_accel.cdk._providers import pool_structs
from gke_accel.model.cluster.spec import MaintenanceSpec
from gke_accel.model.lifecycle.plan import DerivedExclusion, PoolLifecyclePlan
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import pool_labels


def exclusion_blocks(m: MaintenanceSpec, derived: DerivedExclusion | None) -> list[dict[str, Any]] | None:
    """Every exclusion as Terraform JSON, or None when the typed rendering in cdk/cluster.py suffices
    (no end_time_behavior anywhere and nothing derived: the JSON of such configs is unchanged)."""
    if derived is None and all(e.end_time_behavior is None for e in m.exclusions):
        return None
    blocks: list[dict[str, Any]] = []
    for e in m.exclusions:
        options: dict[str, Any] = {"scope": e.scope}
        if e.end_time_behavior:
            options["end_time_behavior"] = e.end_time_behavior
        block: dict[str, Any] = {"exclusion_name": e.name, "start_time": e.start_time, "exclusion_options": options}
        if e.end_time is not None:
            block["end_time"] = e.end_time
        blocks.append(block)
    if derived is not None:
        blocks.append(
            {
                "exclusion_name": derived.name,
                "start_time": derived.start_time,
                "exclusion_options": {"scope": derived.scope, "end_time_behavior": derived.end_time_behavior},
            }
        )
    return blocks


def apply_cluster_lifecycle(cluster: TerraformResource, m: MaintenanceSpec, derived: DerivedExclusion | None) -> None:
    blocks = exclusion_blocks(m, derived)
    if blocks is not None:
        cluster.add_override("maintenance_policy.maintenance_exclusion", blocks)
    b = m.disruption_budget
    if b is not None and (b.minor_interval_days is not None or b.patch_interval_hours is not None):
        budget: dict[str, str] = {}
        if b.minor_interval_days is not None:
            budget["minor_version_disruption_interval"] = f"{b.minor_interval_days * 86400}s"
        if b.patch_interval_hours is not None:
            budget["patch_version_disruption_interval"] = f"{b.patch_interval_hours * 3600}s"
        cluster.add_override("maintenance_policy.disruption_budget", budget)


def upgrade_settings(life: PoolLifecyclePlan) -> Any:
    s = pool_structs
    if life.strategy == "BLUE_GREEN":
        return s.ContainerNodePoolUpgradeSettings(
            strategy="BLUE_GREEN",
            blue_green_settings=s.ContainerNodePoolUpgradeSettingsBlueGreenSettings(
                node_pool_soak_duration=f"{life.soak_seconds}s" if life.soak_seconds is not None else None,
                standard_rollout_policy=s.ContainerNodePoolUpgradeSettingsBlueGreenSettingsStandardRolloutPolicy(
                    batch_node_count=1
                ),
            ),
        )
    if life.strategy == "SURGE":
        return s.ContainerNodePoolUpgradeSettings(
            strategy="SURGE", max_surge=life.max_surge, max_unavailable=life.max_unavailable
        )
    return None


def apply_host_maintenance(pool: TerraformResource, life: PoolLifecyclePlan | None) -> None:
    """``node_config.host_maintenance_policy`` is in google 8.0.0's schema but not in the cdktn bindings:
    an override."""
    if life is not None and life.host_maintenance is not None:
        pool.add_override("node_config.host_maintenance_policy", {"maintenance_interval": life.host_maintenance})


def role_labels(plan: NodePoolPlan) -> dict[str, str]:
    """The pool's node labels as ``node_shape`` decides them (its role included)."""
    return pool_labels(plan)
