"""The comparison on small hand-written stacks: no jsii, milliseconds."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gke_accel.review.diff import diff_stack, flatten
from gke_accel.review.model import Review, StackReview
from gke_accel.review.rules import PathSet, load_rules

POOL = "google_container_node_pool"


def gpu_pool(**node_config: Any) -> dict[str, Any]:
    return {
        "//": {"metadata": {"path": "test/gpu-l4/pool"}},
        "name": "l4",
        "location": "us-central1",
        "cluster": "${google_container_cluster.cluster_1.id}",
        "autoscaling": {"total_min_node_count": 0, "total_max_node_count": 2},
        "node_config": {
            "machine_type": "g2-standard-12",
            "disk_size_gb": 200,
            "guest_accelerator": [{"type": "nvidia-l4", "count": 1}],
            "labels": {"gke-accel/pool": "l4"},
            **node_config,
        },
    }


def tpu_pool() -> dict[str, Any]:
    return {
        "name": "v5p",
        "location": "us-central1",
        "initial_node_count": 2,
        "node_config": {"machine_type": "ct5p-hightpu-4t"},
        "placement_policy": {"type": "COMPACT", "tpu_topology": "2x2x2"},
    }


def stack(**resources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"resource": resources}


def one_change(before: dict[str, Any] | None, after: dict[str, Any] | None) -> Any:
    changes = diff_stack(before, after)
    assert len(changes) == 1, changes
    return changes[0]


def changed(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    node = out
    *parents, last = path.split(".")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[last] = value
    return out


def test_flatten_ignores_metadata_and_indexes_lists_of_blocks() -> None:
    leaves, blocks = flatten(gpu_pool())
    assert "//" not in str(leaves)
    assert leaves["node_config.guest_accelerator[0].count"] == 1
    assert blocks["node_config.guest_accelerator"] == 1


def test_identical_stacks_have_no_changes() -> None:
    doc = stack(**{POOL: {"p": gpu_pool()}})
    assert diff_stack(doc, copy.deepcopy(doc)) == []


def test_metadata_only_change_is_no_change() -> None:
    before = stack(**{POOL: {"p": gpu_pool()}})
    after = copy.deepcopy(before)
    after["resource"][POOL]["p"]["//"]["metadata"]["path"] = "elsewhere"
    assert diff_stack(before, after) == []


def test_resize_is_in_place_and_not_destructive() -> None:
    before = stack(**{POOL: {"p": gpu_pool()}})
    after = stack(**{POOL: {"p": changed(gpu_pool(), "autoscaling.total_max_node_count", 4)}})
    change = one_change(before, after)
    assert (change.action, change.destructive, change.warning) == ("update", False, "")
    assert [(a.path, a.before, a.after, a.effect) for a in change.attributes] == [
        ("autoscaling.total_max_node_count", 2, 4, None)
    ]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("node_config.guest_accelerator.0.count", 2),
        ("node_config.guest_accelerator.0.type", "nvidia-tesla-t4"),
        ("node_config.spot", True),
        ("cluster", "${google_container_cluster.other.id}"),
        ("name", "l4-new"),
        ("location", "us-east1"),
    ],
)
def test_force_new_changes_replace_the_accelerator_pool_destructively(path: str, value: Any) -> None:
    before = stack(**{POOL: {"p": gpu_pool()}})
    after = stack(**{POOL: {"p": changed(gpu_pool(), path, value)}})
    change = one_change(before, after)
    assert change.action == "replace"
    assert change.destructive and change.accelerator_pool
    assert change.warning == "accelerator pool: the jobs on it lose their nodes"
    assert [a.path for a in change.replaced_by] == [path.replace(".0.", "[0].")]


def test_machine_type_of_a_gpu_pool_updates_in_place_but_recreates_every_node() -> None:
    """Provider >= 5.x updates machine_type in place through a node upgrade: still destructive."""
    before = stack(**{POOL: {"p": gpu_pool()}})
    after = stack(**{POOL: {"p": changed(gpu_pool(), "node_config.machine_type", "g2-standard-16")}})
    change = one_change(before, after)
    assert (change.action, change.recreates_nodes, change.destructive) == ("update", True, True)
    assert change.attributes[0].effect == "recreates_nodes"


def test_tpu_topology_and_tpu_machine_type_replace() -> None:
    before = stack(**{POOL: {"t": tpu_pool()}})
    topology = changed(tpu_pool(), "placement_policy.tpu_topology", "2x2x4")
    assert one_change(before, stack(**{POOL: {"t": topology}})).action == "replace"
    machine = changed(tpu_pool(), "node_config.machine_type", "ct5p-hightpu-8t")
    change = one_change(before, stack(**{POOL: {"t": machine}}))
    assert (change.action, change.accelerator_pool, change.attributes[0].effect) == (
        "replace",
        True,
        "not_updatable",
    )


def test_adding_a_force_new_block_replaces_and_labels_do_not() -> None:
    body = gpu_pool()
    with_placement = {**body, "placement_policy": {"type": "COMPACT"}}
    change = one_change(stack(**{POOL: {"p": body}}), stack(**{POOL: {"p": with_placement}}))
    assert change.action == "replace"
    assert {a.path for a in change.replaced_by} == {"placement_policy.#", "placement_policy.type"}
    labels = changed(body, "node_config.labels", {"gke-accel/pool": "l4", "team": "nlp"})
    assert one_change(stack(**{POOL: {"p": body}}), stack(**{POOL: {"p": labels}})).action == "update"


def test_system_pool_replacement_is_destructive_without_the_accelerator_warning() -> None:
    system = {"name": "system", "location": "us-central1", "node_config": {"machine_type": "e2-standard-4"}}
    change = one_change(
        stack(**{POOL: {"s": system}}), stack(**{POOL: {"s": changed(system, "node_config.spot", True)}})
    )
    assert (change.action, change.accelerator_pool, change.destructive) == ("replace", False, True)
    assert change.warning == "the pods on this pool lose their nodes"


def test_cluster_replacement_and_pool_destroy_are_destructive() -> None:
    cluster = {"name": "ml-test", "location": "us-central1", "datapath_provider": "ADVANCED_DATAPATH"}
    before = stack(google_container_cluster={"c": cluster}, **{POOL: {"p": gpu_pool()}})
    after = stack(google_container_cluster={"c": changed(cluster, "datapath_provider", "LEGACY_DATAPATH")})
    changes = {c.address: c for c in diff_stack(before, after)}
    assert changes["google_container_cluster.c"].action == "replace"
    assert "every workload" in changes["google_container_cluster.c"].warning
    assert changes[f"{POOL}.p"].action == "delete"
    assert all(c.destructive for c in changes.values())


def test_unknown_types_update_in_place_unless_their_identity_changes() -> None:
    body = {"name": "x", "spec": {"size": 1}}
    before = stack(acme_widget={"w": body})
    assert one_change(before, stack(acme_widget={"w": changed(body, "spec.size", 2)})).action == "update"
    assert one_change(before, stack(acme_widget={"w": changed(body, "name", "y")})).action == "replace"


def test_kubernetes_metadata_name_replaces_quota_values_do_not() -> None:
    quota = {"metadata": {"name": "nlp", "namespace": "nlp"}, "spec": {"hard": {"requests.nvidia.com/gpu": "2"}}}
    before = stack(kubernetes_resource_quota_v1={"q": quota})
    renamed = changed(quota, "metadata.name", "nlp-compute")
    assert one_change(before, stack(kubernetes_resource_quota_v1={"q": renamed})).action == "replace"
    raised = copy.deepcopy(quota)
    raised["spec"]["hard"]["requests.nvidia.com/gpu"] = "4"
    assert one_change(before, stack(kubernetes_resource_quota_v1={"q": raised})).action == "update"


def test_a_moved_construct_is_a_replace_not_an_add_and_a_destroy() -> None:
    before = stack(**{POOL: {"old_id": gpu_pool()}})
    after = stack(**{POOL: {"new_id": gpu_pool()}})
    change = one_change(before, after)
    assert (change.action, change.previous_logical_id, change.logical_id) == ("replace", "old_id", "new_id")


def test_new_and_removed_checkov_skips_are_noticed() -> None:
    body = {"name": "c", "//": {"checkov_skip": {"CKV_GCP_12": "reason"}}}
    after = {"name": "c", "//": {"checkov_skip": {"CKV_GCP_21": "other"}}}
    change = one_change(stack(x_y={"a": body}), stack(x_y={"a": after}))
    assert (change.action, change.skips_added, change.skips_removed) == ("update", ("CKV_GCP_21",), ("CKV_GCP_12",))


def test_whole_stack_added_or_removed() -> None:
    doc = stack(**{POOL: {"p": gpu_pool()}}, google_compute_network={"n": {"name": "vpc"}})
    assert {c.action for c in diff_stack(None, doc)} == {"create"}
    removed = diff_stack(doc, None)
    assert {c.action for c in removed} == {"delete"}
    assert all(c.destructive for c in removed)


def test_path_sets() -> None:
    paths = PathSet.of(["a.b", "c.*"])
    assert paths.matches("a.b") and paths.matches("a[0].b") and not paths.matches("a")
    assert paths.matches("c") and paths.matches("c[1].d.e") and not paths.matches("cc")
    assert PathSet.of(["*"]).matches("anything.at.all")


def test_rules_data_loads_with_sources_for_the_resources_we_synthesize() -> None:
    rules = load_rules()
    for rtype in (POOL, "google_container_cluster", "google_compute_network", "google_service_account"):
        assert rules.is_known(rtype)
    assert rules.effect(POOL, "node_config.guest_accelerator[0].gpu_partition_size") == "force_new"
    assert rules.effect(POOL, "node_config.machine_type") == "recreates_nodes"
    assert rules.effect(POOL, "node_config.machine_type", tpu=True) == "not_updatable"
    assert rules.effect(POOL, "autoscaling.total_max_node_count") is None
    assert rules.effect("google_container_cluster", "ip_allocation_policy.cluster_secondary_range_name") == "force_new"


def test_exit_codes() -> None:
    update = one_change(
        stack(**{POOL: {"p": gpu_pool()}}),
        stack(**{POOL: {"p": changed(gpu_pool(), "autoscaling.total_max_node_count", 4)}}),
    )
    replace = one_change(
        stack(**{POOL: {"p": gpu_pool()}}), stack(**{POOL: {"p": changed(gpu_pool(), "node_config.spot", True)}})
    )
    assert Review("b", "h", [StackReview("dev", "unchanged")]).exit_code() == 0
    assert Review("b", "h", [StackReview("dev", "changed", [update])]).exit_code(fail_on_destroy=True) == 2
    assert Review("b", "h", [StackReview("dev", "changed", [replace])]).exit_code() == 2
    assert Review("b", "h", [StackReview("dev", "changed", [replace])]).exit_code(fail_on_destroy=True) == 3
    assert Review("b", "h", [StackReview("dev", "changed", [replace])], errors=["x"]).exit_code() == 1
