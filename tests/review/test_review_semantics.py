"""What Terraform does, on hand-written stack documents: sets, zones, replace triggers, the blocks
outside ``resource``, the safety items, the ForceNew gaps and the size of the comment. Pure: no jsii."""

from __future__ import annotations

import copy
from typing import Any

from gke_accel.review.blocks import diff_blocks
from gke_accel.review.diff import diff_stack
from gke_accel.review.model import ResourceChange, Review, StackReview
from gke_accel.review.render import COMMENT_LIMIT, MARKER, failure_markdown, summary_line, to_markdown
from gke_accel.review.rules import load_rules
from gke_accel.review.safety import safety_items

POOL = "google_container_node_pool"


def doc(resources: dict[str, dict[str, Any]], **top: Any) -> dict[str, Any]:
    return {"resource": resources, **top}


def pool(zones: list[str], **extra: Any) -> dict[str, Any]:
    body = {
        "name": "l4",
        "node_locations": zones,
        "node_config": {"machine_type": "g2-standard-12", "guest_accelerator": [{"type": "nvidia-l4", "count": 1}]},
    }
    return {**body, **extra}


def test_reordered_zones_are_no_change() -> None:
    before = doc({POOL: {"l4": pool(["us-central1-a", "us-central1-b"])}})
    after = doc({POOL: {"l4": pool(["us-central1-b", "us-central1-a"])}})
    assert diff_stack(before, after) == []


def test_a_list_that_is_not_a_set_still_compares_by_position() -> None:
    before = doc({"google_compute_instance": {"x": {"tags": ["a", "b"]}}})
    after = doc({"google_compute_instance": {"x": {"tags": ["b", "a"]}}})
    assert [c.action for c in diff_stack(before, after)] == ["update"]


def test_adding_a_zone_adds_nodes_and_is_not_destructive() -> None:
    before = doc({POOL: {"l4": pool(["us-central1-a"])}})
    after = doc({POOL: {"l4": pool(["us-central1-a", "us-central1-b"])}})
    (change,) = diff_stack(before, after)
    assert (change.action, change.destructive, change.recreates_nodes) == ("update", False, False)
    assert change.attributes[0].effect == "adds_nodes"


def test_removing_a_zone_from_an_accelerator_pool_is_destructive() -> None:
    before = doc({POOL: {"l4": pool(["us-central1-a", "us-central1-b"])}})
    after = doc({POOL: {"l4": pool(["us-central1-a"])}})
    (change,) = diff_stack(before, after)
    assert (change.action, change.destructive) == ("update", True)
    assert change.warning == "the nodes in the removed zone(s) are deleted; the other zones keep theirs"


def test_replace_trigger_replaces_the_pool_and_the_trigger_itself_is_harmless() -> None:
    trigger = {"lifecycle": {"replace_triggered_by": ["terraform_data.shape"]}}
    before = doc(
        {
            POOL: {"v5e": {"name": "v5e", "node_config": {"machine_type": "ct5lp-hightpu-4t"}, **trigger}},
            "terraform_data": {"shape": {"triggers_replace": {"tpu_topology": "2x2"}}},
        }
    )
    after = copy.deepcopy(before)
    after["resource"]["terraform_data"]["shape"]["triggers_replace"]["tpu_topology"] = "2x4"
    changes = {c.address: c for c in diff_stack(before, after)}
    pool_change = changes["google_container_node_pool.v5e"]
    assert (pool_change.action, pool_change.destructive, pool_change.accelerator_pool) == ("replace", True, True)
    assert [a.path for a in pool_change.replaced_by] == ["lifecycle.replace_triggered_by[terraform_data.shape]"]
    assert (changes["terraform_data.shape"].action, changes["terraform_data.shape"].destructive) == ("replace", False)


def test_adding_a_replace_trigger_changes_nothing_in_the_pool() -> None:
    before = doc({POOL: {"v5e": {"name": "v5e"}}})
    after = doc(
        {
            POOL: {"v5e": {"name": "v5e", "lifecycle": {"replace_triggered_by": ["terraform_data.shape"]}}},
            "terraform_data": {"shape": {"triggers_replace": {"tpu_topology": "2x2"}}},
        }
    )
    assert [(c.address, c.action) for c in diff_stack(before, after)] == [("terraform_data.shape", "create")]


def test_forcenew_gaps_from_the_provider_schema() -> None:
    rules = load_rules()
    assert rules.effect("google_storage_bucket_iam_member", "member") == "force_new"
    assert rules.effect("google_storage_bucket_iam_member", "condition[0].expression") == "force_new"
    assert rules.effect("google_cloud_quotas_quota_preference", "parent") == "force_new"
    assert rules.effect("google_cloud_quotas_quota_preference", "quota_config.preferred_value") is None
    assert rules.effect("google_container_cluster", "private_cluster_config[0].enable_private_nodes") == "force_new"
    assert rules.effect("google_container_cluster", "private_cluster_config[0].master_global_access_config") is None


BACKEND = {"terraform": {"backend": {"gcs": {"bucket": "state", "prefix": "gke-accel/prod"}}}}


def test_backend_change_is_high_risk_and_a_state_move() -> None:
    after = {"terraform": {"backend": {"gcs": {"bucket": "state", "prefix": "gke-accel/prod-v2"}}}}
    (block,) = diff_blocks(doc({}, **BACKEND), doc({}, **after))
    assert (block.kind, block.action, block.high_risk) == ("backend", "update", True)
    (item,) = safety_items([], [block], doc({}, **BACKEND), doc({}, **after))
    assert item.subject == "state backend moves from `gcs state/gke-accel/prod` to `gcs state/gke-accel/prod-v2`"
    assert "terraform init -migrate-state" in item.instead


def test_provider_outputs_variables_and_data_are_compared() -> None:
    before = doc(
        {},
        provider={"kubernetes": [{"host": "https://${google_container_cluster.c.endpoint}"}]},
        output={"cluster_name": {"value": "a"}},
        variable={"pagerduty_key": {"type": "string"}},
        data={"google_client_config": {"current": {}}},
    )
    after = doc(
        {},
        provider={"kubernetes": [{"config_path": "~/.kube/config"}]},
        output={"cluster_name": {"value": "b"}},
        variable={"pagerduty_key": {"type": "string", "sensitive": True}},
    )
    blocks = {(b.kind, b.name): b for b in diff_blocks(before, after)}
    assert set(blocks) == {
        ("provider", "kubernetes"),
        ("output", "cluster_name"),
        ("variable", "pagerduty_key"),
        ("data", "google_client_config.current"),
    }
    assert [k for k, b in blocks.items() if b.high_risk] == [("provider", "kubernetes")]
    stack = StackReview("prod", "changed", blocks=list(blocks.values()))
    stack.safety = safety_items([], stack.blocks, before, after)
    assert summary_line(stack) == (
        "prod: 0 to replace, 0 to destroy, 0 to add, 0 to change in place; 4 other blocks changed (1 high-risk); "
        "1 safety warning"
    )
    review = Review("main", "abc", [stack])
    assert (review.exit_code(), review.exit_code(fail_on_destroy=True)) == (2, 3)


def test_cluster_replacement_refused_by_deletion_protection() -> None:
    before = doc({"google_container_cluster": {"c": {"name": "ml", "network": "a"}}})
    after = doc({"google_container_cluster": {"c": {"name": "ml", "network": "b"}}})
    changes = diff_stack(before, after)
    (item,) = safety_items(changes, [], before, after)
    assert item.subject == "cluster `ml`: replacement that deletion protection will refuse"


def test_deletion_protection_off_needs_no_other_change_to_be_flagged() -> None:
    before = doc({"google_container_cluster": {"c": {"name": "ml", "deletion_protection": True}}})
    after = doc({"google_container_cluster": {"c": {"name": "ml", "deletion_protection": False}}})
    (item,) = safety_items(diff_stack(before, after), [], before, after)
    assert item.kind == "deletion-protection-off"
    unchanged = doc({"google_container_cluster": {"c": {"name": "ml", "deletion_protection": True, "x": 1}}})
    assert safety_items(diff_stack(before, unchanged), [], before, unchanged) == []


def test_a_big_change_fits_a_comment_with_summary_and_safety_first() -> None:
    changes = [ResourceChange("kubernetes_config_map_v1", f"cm{i:04d}", "create", f"cm{i}") for i in range(3000)] + [
        ResourceChange(POOL, f"p{i:03d}", "delete", f"p{i}", accelerator_pool=True) for i in range(300)
    ]
    before = doc({"google_container_cluster": {"c": {"name": "ml", "network": "a"}}})
    after = doc({"google_container_cluster": {"c": {"name": "ml", "network": "b"}}})
    stack = StackReview("prod", "changed", changes, safety=safety_items(diff_stack(before, after), [], before, after))
    text = to_markdown(Review("main", "abc", [stack]))
    assert len(text) <= COMMENT_LIMIT
    assert text.startswith(MARKER)
    assert "prod: 0 to replace, 300 to destroy, 3000 to add, 0 to change in place (300 destructive)" in text
    assert "### ⚠ Safety (1)" in text and "more (see the JSON review)" in text


def test_failure_comment_keeps_the_marker() -> None:
    text = failure_markdown("base ref 'origin/nope' is not a commit in this clone", base_ref="origin/nope")
    assert text.startswith(MARKER) and "the review failed" in text and "origin/nope" in text


def test_secrets_are_masked_in_every_review_output() -> None:
    # D7: a webhook_tokenauth URL carries its token; sensitive_labels and a sensitive variable's default
    # are secrets too. terraform plan prints "(sensitive value)" for them; so does the review.
    channel = "google_monitoring_notification_channel"

    def stack(token: str, password: str) -> dict[str, Any]:
        return doc(
            {
                channel: {"hook": {"type": "webhook_tokenauth", "labels": {"url": f"https://h.example/x?t={token}"}}},
                "google_sql_user": {"u": {"name": "u", "password": password}},
                "google_storage_bucket": {"b": {"name": "b", "website": {"main_page_suffix": f"https://u:{token}@h"}}},
            },
            variable={"key": {"type": "string", "sensitive": True, "default": password}},
        )

    before, after = stack("OLDSECRET1", "OLDPW1"), stack("NEWSECRET2", "NEWPW2")
    stack_review = StackReview("dev", "changed", diff_stack(before, after), blocks=diff_blocks(before, after))
    review = Review("main", "abc", [stack_review])
    from gke_accel.review.render import to_json

    for text in (to_markdown(review), to_json(review)):
        for secret in ("OLDSECRET1", "NEWSECRET2", "OLDPW1", "NEWPW2"):
            assert secret not in text
        assert "(sensitive value)" in text
    paths = {a.path for c in stack_review.changes for a in c.attributes}
    assert {"labels.url", "password", "website.main_page_suffix"} <= paths  # still shown as changed
    refs = doc({channel: {"hook": {"labels": {"url": "${var.hook_url}"}}}})
    (change,) = diff_stack(doc({channel: {"hook": {"labels": {"url": "${var.old_url}"}}}}), refs)
    assert change.attributes[0].after == "${var.hook_url}"  # a reference is no secret
