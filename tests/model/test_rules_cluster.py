"""Validation rules, one family: the cluster and the environment.

Each rule has an accepted and a rejected case: one config path set to a good value (must load) and
to a bad value (must fail with an issue at the expected path whose message contains the expected
text); ``setup`` applies first. The other families are the sibling ``test_rules_*.py`` modules;
``all_rules.RULES`` holds them all.
"""

from __future__ import annotations

import pytest
from rule_paths import TPU

from helpers import Rule, assert_rule_accepts, assert_rule_rejects

RULES = [
    # --- cluster ---
    Rule("cluster-name", "cluster.name", "ml-a", "ML_A", "cluster.name", "not a valid cluster name"),
    Rule(
        "cluster-location",
        "cluster.location",
        "us-central1-a",
        "us-east1",
        "cluster.location",
        "is not region us-central1",
        {"cluster.node_zones": []},
    ),
    Rule(
        "regional-needs-zones", "cluster.node_zones", ["us-central1-a"], [], "cluster.node_zones", "must list the zones"
    ),
    Rule(
        "cluster-zone-region",
        "cluster.node_zones",
        ["us-central1-a"],
        ["us-central1-a", "us-east1-b"],
        "cluster.node_zones[1]",
        "not a zone of region",
    ),
    Rule(
        "cidr-valid",
        "cluster.network",
        {"subnet_cidr": "10.30.0.0/20"},
        {"subnet_cidr": "10.30.0.1/20"},
        "cluster.network.subnet_cidr",
        "not a valid IPv4 CIDR",
    ),
    Rule(
        "master-cidr-28",
        "cluster.network",
        {"master_cidr": "172.16.0.16/28"},
        {"master_cidr": "172.16.0.0/27"},
        "cluster.network.master_cidr",
        "must be a /28",
    ),
    Rule(
        "ranges-overlap",
        "cluster.network",
        {"pods_cidr": "10.64.0.0/14"},
        {"pods_cidr": "10.8.0.0/14"},
        "cluster.network.pods_cidr",
        "overlaps subnet_cidr",
    ),
    Rule(
        "existing-network-names",
        "cluster.network",
        {"create": False, "network": "n", "subnetwork": "s"},
        {"create": False, "network": "n"},
        "cluster.network.create",
        "needs existing",
    ),
    Rule(
        "authorized-cidr",
        "cluster.master_authorized_networks",
        [{"cidr": "192.168.0.0/16", "name": "vpn"}],
        [{"cidr": "192.168.0.0/33", "name": "vpn"}],
        "cluster.master_authorized_networks[0].cidr",
        "not a valid",
    ),
    Rule(
        "maintenance-order",
        "cluster.maintenance",
        {"start_time": "2025-01-04T03:00:00Z", "end_time": "2025-01-04T11:00:00Z"},
        {"start_time": "2025-01-04T03:00:00Z", "end_time": "2025-01-04T01:00:00Z"},
        "cluster.maintenance.end_time",
        "must be after start_time",
    ),
    Rule(
        "maintenance-rrule",
        "cluster.maintenance",
        {"recurrence": "FREQ=DAILY"},
        {"recurrence": "weekends"},
        "cluster.maintenance.recurrence",
        "not an RFC 5545 RRULE",
    ),
    Rule(
        "maintenance-time",
        "cluster.maintenance",
        {"start_time": "2025-01-04T03:00:00Z"},
        {"start_time": "saturday 3am"},
        "cluster.maintenance.start_time",
        "not an RFC 3339 time",
    ),
    Rule(
        "exclusion-unique",
        "cluster.maintenance",
        {"exclusions": [{"name": "a", "start_time": "2026-12-01T00:00:00Z", "end_time": "2026-12-02T00:00:00Z"}]},
        {
            "exclusions": [
                {"name": "a", "start_time": "2026-12-01T00:00:00Z", "end_time": "2026-12-02T00:00:00Z"},
                {"name": "a", "start_time": "2026-12-03T00:00:00Z", "end_time": "2026-12-04T00:00:00Z"},
            ]
        },
        "cluster.maintenance.exclusions[1].name",
        "used twice",
    ),
    Rule(
        "nap-accelerator",
        "cluster.auto_provisioning",
        {"enabled": True, "accelerators": {"l4": 8}},
        {"enabled": True, "accelerators": {"l5": 8}},
        "cluster.auto_provisioning.accelerators.l5",
        "not a GPU model or TPU generation",
    ),
    Rule(
        "nap-enabled",
        "cluster.auto_provisioning",
        {"enabled": True, "accelerators": {"v5e": 16}},
        {"enabled": False, "accelerators": {"v5e": 16}},
        "cluster.auto_provisioning.enabled",
        "must be true",
    ),
    Rule(
        "system-pool-bounds",
        "cluster.system_pool",
        {"min_nodes": 0, "max_nodes": 1},
        {"min_nodes": 2, "max_nodes": 1},
        "cluster.system_pool.min_nodes",
        "out of range",
    ),
    Rule(
        "release-channel", "cluster.release_channel", "STABLE", "LTS", "cluster.release_channel", "not a valid choice"
    ),
    Rule(
        "tpu-min-gke-version",
        "cluster.min_master_version",
        "1.31.2-gke.1115000",
        "1.31.1-gke.100",
        "cluster.min_master_version",
        "first version with v6e TPUs",
        {f"{TPU}.generation": "v6e", f"{TPU}.zone": "us-central1-b"},
    ),
    Rule(
        "gke-version-format",
        "cluster.min_master_version",
        "1.33",
        "v1.33",
        "cluster.min_master_version",
        "not a GKE version",
    ),
    # --- environment ---
    Rule("environment-name", "environment", "test-2", "Test", "environment", "not a valid environment name"),
    Rule("project-id", "project_id", "acme-ml-test2", "ACME", "project_id", "not a valid project ID"),
    Rule("project-number", "project_number", "418027736645", "acme-ml-test", "project_number", "not a project number"),
    Rule("region", "region", "us-central1", "us central", "region", "not a region name"),
    Rule(
        "gcs-needs-bucket",
        "backend",
        {"type": "gcs", "bucket": "acme-tf-state"},
        {"type": "gcs"},
        "backend.bucket",
        "is required for a gcs backend",
    ),
    Rule(
        "local-no-bucket",
        "backend",
        {"type": "local"},
        {"type": "local", "bucket": "b"},
        "backend.bucket",
        "only used with type 'gcs'",
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)
