"""Synthesized Terraform JSON of the checkpoint bucket, the accelerator pools' restart settings and
the Artifact Registry repository (google provider 8.0.0 field names; ``make validate-terraform``
checks them against the provider build).

Cloud Storage: soft delete 7 days by default (604800 s); a hierarchical namespace needs uniform
bucket-level access and excludes Object Versioning. GKE: ``gcfs_config.enabled`` (image streaming),
``secondary_boot_disks {disk_image, mode = CONTAINER_IMAGE_CACHE}``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from helpers import base_config, one, resources, set_path

Synth = Callable[[dict[str, Any]], dict[str, Any]]
TEAM = {"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"l4": 1}}


@pytest.fixture(scope="module")
def default_doc(synth: Synth) -> dict[str, Any]:
    return synth(set_path(base_config(), "teams", [TEAM]))


@pytest.fixture(scope="module")
def flat_doc(synth: Synth) -> dict[str, Any]:
    data = set_path(base_config(), "platform.checkpoints", {"hierarchical_namespace": False, "max_age_days": 14})
    data = set_path(data, "restart", {"preload": [{"pool": "l4", "disk_image": "global/images/train-1"}]})
    return synth(data)


def test_default_bucket_is_hierarchical_with_soft_delete(default_doc: dict[str, Any]) -> None:
    bucket = one(default_doc, "google_storage_bucket", name="acme-ml-test-test-checkpoints")
    assert bucket["hierarchical_namespace"] == {"enabled": True}
    assert bucket["uniform_bucket_level_access"] is True
    assert bucket["soft_delete_policy"] == {"retention_duration_seconds": 604800}
    assert bucket["versioning"] == {"enabled": False}
    assert bucket["location"] == "US-CENTRAL1"
    assert "lifecycle_rule" not in bucket  # pruned by the writer: GCS cannot keep "the last N"
    grant = one(default_doc, "google_storage_bucket_iam_member")
    assert "/folders/nlp/" in grant["condition"]["expression"]  # folders of a hierarchical bucket


def test_flat_bucket_keeps_versions_and_ages_out(flat_doc: dict[str, Any]) -> None:
    bucket = one(flat_doc, "google_storage_bucket", name="acme-ml-test-test-checkpoints")
    assert bucket["hierarchical_namespace"] == {"enabled": False}
    assert bucket["versioning"] == {"enabled": True}
    conditions = [r["condition"] for r in bucket["lifecycle_rule"]]
    assert {"age": 14} in conditions
    assert {"days_since_noncurrent_time": 30, "with_state": "ARCHIVED"} in conditions
    assert {"num_newer_versions": 3, "with_state": "ARCHIVED"} in conditions


def test_accelerator_pools_stream_images_and_the_system_pool_does_not(default_doc: dict[str, Any]) -> None:
    pools = {p["name"]: p for p in resources(default_doc, "google_container_node_pool")}
    assert pools["l4"]["node_config"]["gcfs_config"] == {"enabled": True}
    assert pools["v5e"]["node_config"]["gcfs_config"] == {"enabled": True}
    assert "gcfs_config" not in pools["system"]["node_config"]
    apis = {s["service"] for s in resources(default_doc, "google_project_service")}
    assert {"containerfilesystem.googleapis.com", "artifactregistry.googleapis.com"} <= apis
    repo = one(default_doc, "google_artifact_registry_repository")
    assert (repo["location"], repo["format"], repo["repository_id"]) == ("us-central1", "DOCKER", "training")


def test_preloaded_pool_has_a_secondary_boot_disk(flat_doc: dict[str, Any]) -> None:
    pools = {p["name"]: p for p in resources(flat_doc, "google_container_node_pool")}
    assert pools["l4"]["node_config"]["secondary_boot_disks"] == [
        {"disk_image": "global/images/train-1", "mode": "CONTAINER_IMAGE_CACHE"}
    ]
    assert "secondary_boot_disks" not in pools["v5e"]["node_config"]
