"""The hardened cluster, its network and node service account, as synthesized Terraform JSON."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import ConfigError, load_environment_text
from helpers import base_config, one, resources, set_path, to_yaml

CLUSTER = "google_container_cluster"


def cluster(doc: dict[str, Any]) -> dict[str, Any]:
    [c] = resources(doc, CLUSTER)
    return c


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_security_defaults_are_on_in_every_environment(shipped: dict[str, Any], env: str) -> None:
    c = cluster(shipped[env])
    assert c["private_cluster_config"]["enable_private_nodes"] is True
    assert c["workload_identity_config"]["workload_pool"] == f"acme-ml-{env}.svc.id.goog"
    assert c["enable_shielded_nodes"] is True
    assert c["datapath_provider"] == "ADVANCED_DATAPATH"
    assert c["release_channel"]["channel"] in {"REGULAR", "STABLE"}
    assert c["master_authorized_networks_config"]["cidr_blocks"] == [
        {"cidr_block": "10.0.0.0/8", "display_name": "corp"}
    ]
    assert c["master_auth"]["client_certificate_config"]["issue_client_certificate"] is False
    assert c["binary_authorization"]["evaluation_mode"] == "PROJECT_SINGLETON_POLICY_ENFORCE"
    assert c["remove_default_node_pool"] is True
    assert c["addons_config"]["gcs_fuse_csi_driver_config"]["enabled"] is True
    assert c["monitoring_config"]["managed_prometheus"]["enabled"] is True
    assert "DCGM" in c["monitoring_config"]["enable_components"]
    assert c["maintenance_policy"]["recurring_window"]["recurrence"] == "FREQ=WEEKLY;BYDAY=SA,SU"
    assert c["resource_labels"]["environment"] == env


def test_prod_has_a_private_endpoint_deletion_protection_and_exclusions(shipped: dict[str, Any]) -> None:
    c = cluster(shipped["prod"])
    assert c["private_cluster_config"]["enable_private_endpoint"] is True
    assert c["deletion_protection"] is True
    # config/prod.yaml's quarter-end exclusion, and the training pools' exclusion (docs/lifecycle.md)
    by_name = {e["exclusion_name"]: e for e in c["maintenance_policy"]["maintenance_exclusion"]}
    assert set(by_name) == {"quarter-end-training", "gke-accel-training"}
    assert by_name["quarter-end-training"]["exclusion_options"] == {"scope": "NO_MINOR_OR_NODE_UPGRADES"}
    assert by_name["quarter-end-training"]["end_time"] == "2027-01-05T00:00:00Z"


def test_dev_turns_deletion_protection_off(shipped: dict[str, Any]) -> None:
    assert cluster(shipped["dev"])["deletion_protection"] is False


def test_nodes_use_a_dedicated_least_privilege_service_account(shipped: dict[str, Any]) -> None:
    doc = shipped["dev"]
    account = one(doc, "google_service_account", account_id="ml-dev-nodes")
    assert account["project"] == "acme-ml-dev"
    roles = {m["role"] for m in resources(doc, "google_project_iam_member")}
    assert roles == {
        "roles/logging.logWriter",
        "roles/monitoring.metricWriter",
        "roles/monitoring.viewer",
        "roles/stackdriver.resourceMetadata.writer",
        "roles/autoscaling.metricsWriter",
        "roles/artifactregistry.reader",
    }
    for pool in resources(doc, "google_container_node_pool"):
        node = pool["node_config"]
        assert node["service_account"].startswith("${google_service_account.cluster_node-sa_account_")
        assert node["shielded_instance_config"] == {"enable_integrity_monitoring": True, "enable_secure_boot": True}
        assert node["workload_metadata_config"]["mode"] == "GKE_METADATA"
        assert node["metadata"]["disable-legacy-endpoints"] == "true"


def test_network_has_secondary_ranges_nat_and_a_default_deny(shipped: dict[str, Any]) -> None:
    doc = shipped["staging"]
    [subnet] = resources(doc, "google_compute_subnetwork")
    assert {r["range_name"] for r in subnet["secondary_ip_range"]} == {"pods", "services"}
    assert subnet["private_ip_google_access"] is True
    assert (
        one(doc, "google_compute_router_nat")["source_subnetwork_ip_ranges_to_nat"] == "ALL_SUBNETWORKS_ALL_IP_RANGES"
    )
    assert one(doc, "google_compute_firewall")["deny"] == [{"protocol": "all"}]


def test_system_pool_is_small_and_tainted(shipped: dict[str, Any]) -> None:
    pool = one(shipped["dev"], "google_container_node_pool", name="system")
    assert pool["node_config"]["taint"] == [
        {"effect": "NO_SCHEDULE", "key": "components.gke.io/gke-managed-components", "value": "true"}
    ]
    assert pool["autoscaling"]["total_max_node_count"] == 3


def test_backends_local_for_dev_and_gcs_elsewhere(shipped: dict[str, Any]) -> None:
    assert "local" in shipped["dev"]["terraform"]["backend"]
    assert shipped["prod"]["terraform"]["backend"]["gcs"] == {"bucket": "acme-ml-tfstate", "prefix": "gke-accel/prod"}


def test_node_auto_provisioning_limits_accelerators_by_label(synth: Any) -> None:
    from helpers import base_config, set_path

    data = set_path(
        base_config(), "cluster.auto_provisioning", {"enabled": True, "accelerators": {"h100": 16, "v6e": 32}}
    )
    c = cluster(synth(data))["cluster_autoscaling"]
    limits = {r["resource_type"]: r["maximum"] for r in c["resource_limits"]}
    assert limits == {"cpu": 256, "memory": 1024, "nvidia-h100-80gb": 16, "tpu-v6e-slice": 32}
    assert c["auto_provisioning_defaults"]["shielded_instance_config"]["enable_secure_boot"] is True


# GKE API SecurityPostureConfig (container v1 discovery document, revision 20261027): mode BASIC and
# DISABLED are current, ENTERPRISE is deprecated; vulnerabilityMode is a deprecated field whose tiers
# VULNERABILITY_BASIC and VULNERABILITY_ENTERPRISE are deprecated ("no longer supported"), leaving
# VULNERABILITY_DISABLED (code review R2). tests/google_api checks this against the document itself.
@pytest.mark.parametrize(("posture", "mode"), [(None, "BASIC"), ("basic", "BASIC"), ("disabled", "DISABLED")])
def test_security_posture_is_sent_and_vulnerability_scanning_is_off(synth: Any, posture: str | None, mode: str) -> None:
    data = base_config() if posture is None else set_path(base_config(), "cluster.security_posture", posture)
    c = cluster(synth(data))
    assert c["security_posture_config"] == {"mode": mode, "vulnerability_mode": "VULNERABILITY_DISABLED"}


def test_a_retired_posture_tier_is_refused_with_the_valid_values() -> None:
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(set_path(base_config(), "cluster.security_posture", "enterprise")))
    text = str(info.value)
    assert "cluster.security_posture" in text and "'enterprise'" in text
    assert "basic" in text and "disabled" in text
