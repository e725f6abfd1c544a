"""Issue 14's scenarios end to end: two configs (or a synthesized head edited the way a pull request
would) compared; each pins the summary line, the exit codes and the Safety section's text."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from gke_accel.review.build import SideResult
from gke_accel.review.compare import compare_sides, review_config_dirs
from gke_accel.review.model import Review
from gke_accel.review.render import summary_lines, to_markdown
from helpers import OMIT, base_config, set_path, to_yaml

TEAM = {"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"l4": 1}}


def review(tmp_path: Path, base: dict[str, Any], head: dict[str, Any]) -> Review:
    for side, data in (("base-config", base), ("head-config", head)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "test.yaml").write_text(to_yaml(data))
    return review_config_dirs(tmp_path / "base-config", tmp_path / "head-config", tmp_path)


def safety(r: Review) -> str:
    markdown = to_markdown(r)
    assert "### ⚠ Safety" in markdown, markdown
    section = markdown.split("### ⚠ Safety", 1)[1].split("\n### ", 1)[0]
    assert markdown.index("### ⚠ Safety") < markdown.index("### `test`")  # above the resource lists
    return section


def codes(r: Review) -> tuple[int, int]:
    return r.exit_code(), r.exit_code(fail_on_destroy=True)


def edited_head(tmp_path: Path, edit: Any) -> Review:
    """The base config synthesized once; the head is the same stack with ``edit`` applied to its JSON."""
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "test.yaml").write_text(to_yaml(base_config()))
    r = review_config_dirs(tmp_path / "cfg", tmp_path / "cfg", tmp_path)
    assert summary_lines(r) == ["test: no changes"]
    stack = json.loads((tmp_path / "head" / "stacks" / "test" / "cdk.tf.json").read_text())
    base = SideResult("base", tmp_path / "base" / "stacks", {"test": stack}, {"test": r.stacks[0].before})  # type: ignore[dict-item]
    head_stack = copy.deepcopy(stack)
    edit(head_stack)
    head = SideResult("head", tmp_path / "head" / "stacks", {"test": head_stack}, {"test": r.stacks[0].after})  # type: ignore[dict-item]
    return compare_sides(base, head, base_ref="base", head_ref="head")


def test_reordering_zones_is_no_change(tmp_path: Path) -> None:
    head = set_path(base_config(), "cluster.node_zones", ["us-central1-b", "us-central1-a"])
    r = review(tmp_path, base_config(), head)
    assert summary_lines(r) == ["test: no changes"]
    assert codes(r) == (0, 0)


def test_adding_a_zone_keeps_the_nodes(tmp_path: Path) -> None:
    head = set_path(base_config(), "cluster.node_zones", ["us-central1-a", "us-central1-b", "us-central1-c"])
    r = review(tmp_path, base_config(), head)
    assert r.stacks[0].destructive == []
    assert codes(r) == (2, 2)
    assert "recreates every node" not in to_markdown(r)
    pools = [c for c in r.stacks[0].changes if c.rtype == "google_container_node_pool"]
    assert pools and all(a.effect == "adds_nodes" for c in pools for a in c.attributes if a.path == "node_locations")


def test_tpu_topology_change_makes_a_new_slice_pool(tmp_path: Path) -> None:
    head = set_path(base_config(), "tpu_pools[0].topology", "2x4")
    r = review(tmp_path, base_config(), head)
    # the pool and its terraform_data shape trigger are replaced: what `terraform plan` counts
    assert summary_lines(r) == ["test: 2 to replace, 0 to destroy, 0 to add, 0 to change in place (1 destructive)"]
    assert codes(r) == (2, 3)
    pool = next(c for c in r.stacks[0].changes if c.rtype == "google_container_node_pool")
    assert pool.action == "replace" and pool.warning == "accelerator pool: the jobs on it lose their nodes"
    assert any(a.effect == "replace_trigger" for a in pool.replaced_by)


def test_deletion_protection_turned_off(tmp_path: Path) -> None:
    base = set_path(base_config(), "cluster.deletion_protection", True)
    r = review(tmp_path, base, base_config())
    assert summary_lines(r) == ["test: 0 to replace, 0 to destroy, 0 to add, 1 to change in place; 1 safety warning"]
    assert codes(r) == (2, 3)
    assert "**deletion protection turned off on `ml-test` (google_container_cluster)**" in safety(r)


def test_team_namespace_renamed(tmp_path: Path) -> None:
    base = set_path(base_config(), "teams", [TEAM])
    head = set_path(base_config(), "teams", [{**TEAM, "namespace": "nlp-v2"}])
    r = review(tmp_path, base, head)
    text = safety(r)
    assert "**namespace `nlp` renamed to `nlp-v2`**" in text
    assert "every workload, secret and persistent volume claim in it" in text
    assert "set its `namespace: nlp`" in text
    assert codes(r) == (2, 3)


def test_team_removed_deletes_its_namespace(tmp_path: Path) -> None:
    base = set_path(base_config(), "teams", [TEAM])
    r = review(tmp_path, base, base_config())
    assert "**namespace `nlp` removed**" in safety(r)
    assert codes(r) == (2, 3)


def test_checkpoint_bucket_replaced(tmp_path: Path) -> None:
    head = set_path(base_config(), "platform", {"checkpoints": {"location": "US"}})
    r = review(tmp_path, base_config(), head)
    assert summary_lines(r)[0].startswith("test: 1 to replace, 0 to destroy, 0 to add")
    assert codes(r) == (2, 3)
    text = safety(r)
    assert "**checkpoint bucket `acme-ml-test-test-checkpoints` replaced**" in text
    assert "(force_destroy = false)" in text


def test_cluster_replacement_refused_by_deletion_protection(tmp_path: Path) -> None:
    base = set_path(base_config(), "cluster.deletion_protection", OMIT)
    head = set_path(base, "cluster.network", {"master_cidr": "172.16.1.0/28"})
    r = review(tmp_path, base, head)
    assert codes(r) == (2, 3)
    text = safety(r)
    assert "**cluster `ml-test`: replacement that deletion protection will refuse**" in text
    assert "`private_cluster_config.master_ipv4_cidr_block`" in text


def test_backend_move_is_a_state_move(tmp_path: Path) -> None:
    head = set_path(base_config(), "backend", {"type": "gcs", "bucket": "acme-tfstate", "prefix": "gke-accel/test"})
    r = review(tmp_path, base_config(), head)
    assert summary_lines(r) == [
        "test: 0 to replace, 0 to destroy, 0 to add, 0 to change in place; 1 other block changed (1 high-risk); "
        "1 safety warning"
    ]
    assert codes(r) == (2, 3)
    moved = (
        "**state backend moves from `local ../../../terraform-state/test.tfstate` to "
        "`gcs acme-tfstate/gke-accel/test`**"
    )
    assert moved in safety(r)


def test_kubernetes_provider_pointed_at_a_kubeconfig(tmp_path: Path) -> None:
    def edit(stack: dict[str, Any]) -> None:
        stack["provider"]["kubernetes"] = [{"config_path": "~/.kube/config"}]

    r = edited_head(tmp_path, edit)
    assert summary_lines(r) == [
        "test: 0 to replace, 0 to destroy, 0 to add, 0 to change in place; 1 other block changed (1 high-risk); "
        "1 safety warning"
    ]
    assert codes(r) == (2, 3)
    assert "applied to whichever cluster these settings reach" in safety(r)


def test_output_change_is_a_change_not_no_changes(tmp_path: Path) -> None:
    def edit(stack: dict[str, Any]) -> None:
        stack["output"]["cluster_name"]["value"] = "renamed"

    r = edited_head(tmp_path, edit)
    assert summary_lines(r) == [
        "test: 0 to replace, 0 to destroy, 0 to add, 0 to change in place; 1 other block changed"
    ]
    assert codes(r) == (2, 2)


def test_construct_moved_is_a_state_move(tmp_path: Path) -> None:
    def edit(stack: dict[str, Any]) -> None:
        pools = stack["resource"]["google_container_node_pool"]
        old = next(k for k, v in pools.items() if v["name"] == "l4")
        pools["moved_" + old] = pools.pop(old)

    r = edited_head(tmp_path, edit)
    assert summary_lines(r)[0].startswith("test: 1 to replace, 0 to destroy, 0 to add")
    assert codes(r) == (2, 3)
    assert "`terraform state mv google_container_node_pool." in safety(r)
