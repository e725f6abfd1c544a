"""The in-cluster platform in the synthesized stacks: typed kubernetes resources made from the same
manifests `gke-accel manifests` writes, the provider wired to the cluster, team identities, storage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import load_environment
from gke_accel.model.platform.manifests import platform_manifests
from helpers import one, resources

CONFIG = Path(__file__).resolve().parents[2] / "config"
TYPED = {
    "Namespace": "kubernetes_namespace_v1",
    "ResourceQuota": "kubernetes_resource_quota_v1",
    "LimitRange": "kubernetes_limit_range_v1",
    "ServiceAccount": "kubernetes_service_account_v1",
    "Role": "kubernetes_role_v1",
    "RoleBinding": "kubernetes_role_binding_v1",
    "NetworkPolicy": "kubernetes_network_policy_v1",
    "PriorityClass": "kubernetes_priority_class_v1",
    "DaemonSet": "kubernetes_daemon_set_v1",
}


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_manifest_is_a_typed_resource_and_nothing_else(shipped: dict[str, Any], env: str) -> None:
    doc = shipped[env]
    manifests = platform_manifests(load_environment(CONFIG / f"{env}.yaml"))
    declared = {(TYPED[m["kind"]], m["metadata"]["name"], m["metadata"].get("namespace")) for m in manifests}
    synthesized = {
        (rtype, r["metadata"]["name"], r["metadata"].get("namespace"))
        for rtype in set(TYPED.values())
        for r in resources(doc, rtype)
    }
    assert synthesized == declared
    assert "kubernetes_manifest" not in doc["resource"]


def test_quota_and_installer_fields_match_the_manifests(shipped: dict[str, Any]) -> None:
    doc = shipped["staging"]
    manifests = platform_manifests(load_environment(CONFIG / "staging.yaml"))
    for m in (m for m in manifests if m["kind"] == "ResourceQuota"):
        quota = one(doc, "kubernetes_resource_quota_v1", metadata={**m["metadata"]})
        assert quota["spec"]["hard"] == m["spec"]["hard"]
    [ds] = [m for m in manifests if m["kind"] == "DaemonSet"]
    typed = resources(doc, "kubernetes_daemon_set_v1")[0]
    pod, tpod = ds["spec"]["template"]["spec"], typed["spec"]["template"]["spec"]
    assert [c["image"] for c in tpod["init_container"]] == [c["image"] for c in pod["initContainers"]]
    assert tpod["container"][0]["image"] == pod["containers"][0]["image"]
    assert tpod["host_pid"] is True and tpod["priority_class_name"] == "system-node-critical"
    terms = tpod["affinity"]["node_affinity"]["required_during_scheduling_ignored_during_execution"]
    assert len(terms["node_selector_term"]) == 2
    assert typed["wait_for_rollout"] is False and typed["spec"]["strategy"] == {"type": "RollingUpdate"}


def test_team_workload_identity_and_checkpoint_prefix_access(shipped: dict[str, Any]) -> None:
    doc = shipped["dev"]
    gsa = one(doc, "google_service_account", account_id="nlp-dev-wi")
    assert gsa["project"] == "acme-ml-dev"
    wi = one(doc, "google_service_account_iam_member", member="serviceAccount:acme-ml-dev.svc.id.goog[nlp/workload]")
    assert wi["role"] == "roles/iam.workloadIdentityUser"
    assert any("google_container_cluster" in d for d in wi["depends_on"])
    bucket = one(doc, "google_storage_bucket", name="acme-ml-dev-dev-checkpoints")
    assert bucket["uniform_bucket_level_access"] is True and bucket["public_access_prevention"] == "enforced"
    # dev: a hierarchical-namespace bucket, which Cloud Storage does not version (model/storage/bucket.py);
    # prod keeps its flat, versioned bucket (config/prod.yaml), with its noncurrent-version rules
    assert bucket["hierarchical_namespace"] == {"enabled": True}
    assert bucket["versioning"] == {"enabled": False}
    prod = one(shipped["prod"], "google_storage_bucket", name="acme-ml-prod-prod-checkpoints")
    assert prod["versioning"] == {"enabled": True}
    assert {r["condition"].get("days_since_noncurrent_time") for r in prod["lifecycle_rule"]} == {14, None}
    access = [m for m in resources(doc, "google_storage_bucket_iam_member") if "nlp" in m["condition"]["title"]]
    [grant] = access
    assert grant["role"] == "roles/storage.objectUser"
    assert (
        'startsWith("projects/_/buckets/acme-ml-dev-dev-checkpoints/objects/nlp/")' in grant["condition"]["expression"]
    )


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_no_synthesized_limit_range_names_an_accelerator(shipped: dict[str, Any], env: str) -> None:
    """real-engines F1/F2: a LimitRange naming nvidia.com/gpu or google.com/tpu (even as "0") made Kueue
    inject a GPU flavor's node labels into TPU jobs, and GKE's ExtendedResourceToleration admission plugin
    let every team pod tolerate the accelerator taints ("Run GPUs in Standard node pools",
    cloud.google.com/kubernetes-engine/docs/how-to/gpus)."""
    ranges = resources(shipped[env], "kubernetes_limit_range_v1")
    assert len(ranges) == {"dev": 2, "staging": 3, "prod": 2}[env]  # one per team
    for limit_range in ranges:
        [item] = limit_range["spec"]["limit"]
        assert item["type"] == "Container"
        assert item["default"] == {"cpu": "1", "memory": "2Gi"}
        assert item["default_request"] == {"cpu": "250m", "memory": "512Mi"}
        assert "max" not in item and "min" not in item
        text = json.dumps(limit_range)
        assert "nvidia.com/gpu" not in text and "google.com/tpu" not in text
