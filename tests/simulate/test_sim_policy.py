"""The static policy's ClusterQueues; quotas and capacity read from the server's objects."""

from __future__ import annotations

from gke_accel.simulate.failures import failure_units, schedule
from gke_accel.simulate.policy import beyond_nominal, flavor_capacity, nominal_quotas, static_cluster_queue

# A ClusterQueue as the stack writes it (model/queues/manifests.py, docs/queues.md "What is generated")
CQ = {
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "research"},
    "spec": {
        "cohortName": "staging",
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "research"}},
        "resourceGroups": [
            {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "cpu-memory", "resources": [
                {"name": "cpu", "nominalQuota": 64, "borrowingLimit": 0},
                {"name": "memory", "nominalQuota": "256Gi", "borrowingLimit": 0}]}]},
            {"coveredResources": ["google.com/tpu"], "flavors": [{"name": "v5e-2x4", "resources": [
                {"name": "google.com/tpu", "nominalQuota": 8, "borrowingLimit": 16}]}]},
            {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "l4", "resources": [
                {"name": "nvidia.com/gpu", "nominalQuota": 0}]}]},
        ],
    },
}  # fmt: skip


def test_static_sets_no_borrowing_on_every_accelerator_and_keeps_the_rest() -> None:
    out = static_cluster_queue(CQ)
    groups = out["spec"]["resourceGroups"]
    assert groups[1]["flavors"][0]["resources"] == [{"name": "google.com/tpu", "nominalQuota": 8, "borrowingLimit": 0}]
    assert groups[2]["flavors"][0]["resources"] == [{"name": "nvidia.com/gpu", "nominalQuota": 0, "borrowingLimit": 0}]
    assert groups[0] == CQ["spec"]["resourceGroups"][0]  # type: ignore[index]
    assert out["spec"]["cohortName"] == "staging"
    assert CQ["spec"]["resourceGroups"][1]["flavors"][0]["resources"][0]["borrowingLimit"] == 16  # type: ignore[index]


def test_nominal_quotas_per_team_and_flavor() -> None:
    assert nominal_quotas([CQ], {"research": "research"}) == {"research": {"v5e-2x4": 8, "l4": 0}}


def _node(name: str, labels: dict[str, str], alloc: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": alloc}}


TPU = {"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice", "cloud.google.com/gke-tpu-topology": "2x4"}
NODES = [
    _node("s0-a", {**TPU, "cloud.google.com/gke-nodepool": "s0"}, {"google.com/tpu": "4", "cpu": "112"}),
    _node("s0-b", {**TPU, "cloud.google.com/gke-nodepool": "s0"}, {"google.com/tpu": "4", "cpu": "112"}),
    _node("s1-a", {**TPU, "cloud.google.com/gke-nodepool": "s1"}, {"google.com/tpu": "4"}),
    _node("s1-b", {**TPU, "cloud.google.com/gke-nodepool": "s1"}, {"google.com/tpu": "4"}),
    _node("l4-0", {"cloud.google.com/gke-accelerator": "nvidia-l4"}, {"nvidia.com/gpu": "1"}),
    _node("sys-0", {"cloud.google.com/gke-nodepool": "system"}, {"cpu": "4"}),
]
FLAVORS = [
    {"metadata": {"name": "v5e-2x4"}, "spec": {"nodeLabels": TPU}},
    {"metadata": {"name": "l4"}, "spec": {"nodeLabels": {"cloud.google.com/gke-accelerator": "nvidia-l4"}}},
    {"metadata": {"name": "cpu-memory"}, "spec": {}},
]


def test_flavor_capacity_counts_the_accelerators_of_the_nodes_a_flavor_selects() -> None:
    assert flavor_capacity(FLAVORS, NODES) == (
        {"v5e-2x4": 16, "l4": 1},
        {"v5e-2x4": "google.com/tpu", "l4": "nvidia.com/gpu"},
    )


def test_a_failure_takes_a_whole_tpu_slice_or_one_gpu_node_never_a_cpu_node() -> None:
    assert failure_units(NODES) == [("l4-0",), ("s0-a", "s0-b"), ("s1-a", "s1-b")]


def test_failures_are_seeded_and_come_at_the_rate() -> None:
    units = failure_units(NODES)
    a = schedule(2.0, 500 * 86400, units, seed=5)
    assert a == schedule(2.0, 500 * 86400, units, seed=5) and a != schedule(2.0, 500 * 86400, units, seed=6)
    assert 900 < len(a) < 1100  # 2 a day for 500 days: 1000 expected, sd ~32
    assert schedule(0.0, 86400, units, seed=1) == [] and schedule(1.0, 86400, [], seed=1) == []
    assert {f.nodes for f in a} == set(units)


def test_under_static_a_job_larger_than_every_nominal_quota_of_its_team_is_named_and_one_that_fits_is_not() -> None:
    nominal = {"research": {"v5e-2x4": 8, "l4": 2}, "nlp": {"v5e-2x4": 16}}
    resource_of = {"v5e-2x4": "google.com/tpu", "l4": "nvidia.com/gpu"}
    jobs = [("r-two-slices", "research", 16, "google.com/tpu"), ("r-one", "research", 8, "google.com/tpu"),
            ("r-gpu", "research", 2, "nvidia.com/gpu"), ("n-two", "nlp", 16, "google.com/tpu"),
            ("n-gpu", "nlp", 1, "nvidia.com/gpu")]  # fmt: skip
    assert beyond_nominal(jobs, nominal, resource_of) == ["r-two-slices (16 > 8)", "n-gpu (1 > 0)"]
