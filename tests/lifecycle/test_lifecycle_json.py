"""Each pool role's lifecycle defaults as synthesized Terraform JSON (docs/lifecycle.md).

Expected values are written by hand from the sources: v5e 2x4 is 8 chips on ct5lp-hightpu-4t (4 chips
per VM), so 2 VMs (catalog-facts.md, GKE "Plan TPUs"); exclusion fields and the disruption budget as in
google provider 8.0.0's schema (``maintenance_exclusion.exclusion_options.{scope,end_time_behavior}``,
``disruption_budget.{minor,patch}_version_disruption_interval`` as seconds with an ``s``); surge
settings as in "Configure node upgrade strategies" (max_surge/max_unavailable).
"""

from __future__ import annotations

from typing import Any

import pytest
from lifecycle_configs import production_roles

from helpers import base_config, one, set_path

POOL = "google_container_node_pool"
CLUSTER = "google_container_cluster"


@pytest.fixture(scope="module")
def prod_roles(synth: Any) -> dict[str, Any]:
    result: dict[str, Any] = synth(production_roles())
    return result


def test_training_slice_upgrades_whole_and_keeps_auto_repair(prod_roles: dict[str, Any]) -> None:
    pool = one(prod_roles, POOL, name="train")
    assert pool["upgrade_settings"] == {"strategy": "SURGE", "max_surge": 0, "max_unavailable": 2}
    assert pool["management"]["auto_repair"] is True


def test_training_pool_gets_the_exclusion_until_end_of_support(prod_roles: dict[str, Any]) -> None:
    [cluster] = prod_roles["resource"][CLUSTER].values()
    [exclusion] = cluster["maintenance_policy"]["maintenance_exclusion"]
    assert exclusion == {
        "exclusion_name": "gke-accel-training",
        "start_time": "2025-01-04T03:00:00Z",  # the maintenance window's start (MaintenanceSpec default)
        "exclusion_options": {"scope": "NO_MINOR_OR_NODE_UPGRADES", "end_time_behavior": "UNTIL_END_OF_SUPPORT"},
    }


def test_disruption_budget_in_seconds(prod_roles: dict[str, Any]) -> None:
    [cluster] = prod_roles["resource"][CLUSTER].values()
    assert cluster["maintenance_policy"]["disruption_budget"] == {
        "minor_version_disruption_interval": "3888000s",  # 45 days
        "patch_version_disruption_interval": "259200s",  # 72 hours
    }


def test_inference_pool_from_the_teams_rolls_one_node_at_a_time(prod_roles: dict[str, Any]) -> None:
    pool = one(prod_roles, POOL, name="serve")
    assert pool["upgrade_settings"] == {"strategy": "SURGE", "max_surge": 1, "max_unavailable": 0}


def test_batch_pool_with_host_maintenance_periodic(prod_roles: dict[str, Any]) -> None:
    pool = one(prod_roles, POOL, name="sweep")
    assert pool["upgrade_settings"] == {"strategy": "SURGE", "max_surge": 1, "max_unavailable": 0}
    assert pool["node_config"]["host_maintenance_policy"] == {"maintenance_interval": "PERIODIC"}


def test_dev_environment_keeps_gke_defaults(synth: Any) -> None:
    data = set_path(
        base_config(),
        "tpu_pools",
        [
            {
                "name": "s",
                "generation": "v5e",
                "topology": "2x4",
                "machine_type": "ct5lp-hightpu-4t",
                "zone": "us-central1-a",
            }
        ],
    )
    doc = synth(data)
    pool = one(doc, POOL, name="s")
    assert "upgrade_settings" not in pool  # GKE's default strategy, nothing rendered
    [cluster] = doc["resource"][CLUSTER].values()
    assert "maintenance_exclusion" not in cluster["maintenance_policy"]
    assert "disruption_budget" not in cluster["maintenance_policy"]


def test_blue_green_with_soak_and_an_explicit_role_outside_production(synth: Any) -> None:
    data = set_path(
        base_config(),
        "gpu_pools",
        [
            {
                "name": "l4",
                "gpu": "l4",
                "gpus_per_node": 1,
                "max_nodes": 2,
                "role": "inference",
                "lifecycle": {"upgrade": "blue-green", "soak_hours": 2},
            }
        ],
    )
    pool = one(synth(data), POOL, name="l4")
    assert pool["upgrade_settings"] == {
        "strategy": "BLUE_GREEN",
        "blue_green_settings": {"node_pool_soak_duration": "7200s", "standard_rollout_policy": {"batch_node_count": 1}},
    }


def test_user_exclusion_until_end_of_support_replaces_the_derived_one(synth: Any) -> None:
    data = production_roles()
    data["cluster"]["maintenance"]["exclusions"] = [
        {"name": "hold", "start_time": "2026-12-01T00:00:00Z", "end_time_behavior": "UNTIL_END_OF_SUPPORT"}
    ]
    [cluster] = synth(data)["resource"][CLUSTER].values()
    assert cluster["maintenance_policy"]["maintenance_exclusion"] == [
        {
            "exclusion_name": "hold",
            "start_time": "2026-12-01T00:00:00Z",
            "exclusion_options": {"scope": "NO_MINOR_OR_NODE_UPGRADES", "end_time_behavior": "UNTIL_END_OF_SUPPORT"},
        }
    ]
