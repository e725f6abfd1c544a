"""Checkpoint bucket and restart rules: each accepted and rejected (docs/storage.md cites the pages).

Soft delete: Cloud Storage "Soft delete" and "Quotas & limits" (at most 90 days; 7 days by default,
604800 s); location: the pools' region; preloads: GKE "Use secondary boot disks to preload data or
container images" (a Compute Engine disk image, mode CONTAINER_IMAGE_CACHE)."""

from __future__ import annotations

import pytest

from helpers import Rule, assert_rule_accepts, assert_rule_rejects

CP = "platform.checkpoints"
RULES = [
    Rule("soft-delete-short", f"{CP}.soft_delete_days", 30, 3, f"{CP}.soft_delete_days", "0 (off) or 7 to 90 days"),
    Rule("soft-delete-long", f"{CP}.soft_delete_days", 0, 91, f"{CP}.soft_delete_days", "0 (off) or 7 to 90 days"),
    Rule("max-age", f"{CP}.max_age_days", 14, 0, f"{CP}.max_age_days", "1 or more"),
    Rule("location", f"{CP}.location", "us-central1", "europe-west4", f"{CP}.location", "us-central1 (or unset)"),
    Rule("cache-size", f"{CP}.file_cache_gib", 20, 0, f"{CP}.file_cache_gib", "1 or more"),
    Rule(
        "cache-off-size",
        f"{CP}.file_cache",
        "disk",
        "off",
        f"{CP}.file_cache_gib",
        "file_cache is off",
        setup={f"{CP}.file_cache_gib": 10},
    ),
    Rule(
        "repository",
        "restart.registry.repository",
        "train-images",
        "Train_Images",
        "restart.registry.repository",
        "lowercase",
    ),
    Rule(
        "preload-pool",
        "restart.preload",
        [{"pool": "v5e", "disk_image": "global/images/train-1"}],
        [{"pool": "h100", "disk_image": "global/images/train-1"}],
        "restart.preload[0].pool",
        "not an accelerator pool",
    ),
    Rule(
        "preload-image",
        "restart.preload",
        [{"pool": "l4", "disk_image": "projects/acme-ml-test/global/images/train-1"}],
        [{"pool": "l4", "disk_image": "gs://acme/train.tar"}],
        "restart.preload[0].disk_image",
        "global/images/NAME",
    ),
    Rule(
        "preload-needs-streaming",
        "restart.image_streaming",
        True,
        False,
        "restart.image_streaming",
        "secondary boot disk",
        setup={"restart.preload": [{"pool": "l4", "disk_image": "global/images/train-1"}]},
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_accepts(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_rejects(rule: Rule) -> None:
    assert_rule_rejects(rule)
