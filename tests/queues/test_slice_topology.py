"""Whole TPU slices by Kueue's Topology (model/queues/topology.py): which environments get one, what
``workload new`` asks for, and lint's ``slice-topology`` rule (accepted and rejected cases). The annotation
names and the refusal are Kueue v0.19.2's (apis/kueue/v1beta2/topology_types.go; e2e:
tests/e2e/test_slice_topology_on_server.py shows the real controller's verdicts)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts

CONFIG = Path(__file__).resolve().parents[2] / "config"
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"


@pytest.fixture(scope="module")
def plans() -> dict[str, EnvironmentPlan]:
    return {p.name: p for p in load_environments(CONFIG, ["dev", "staging"])}


def kinds(plan: EnvironmentPlan) -> list[str]:
    assert plan.queues is not None
    return [o["kind"] for o in queue_manifests(plan.queues, plan.spec.platform.priority_classes)]


def jobset(plan: EnvironmentPlan, slices: int = 1) -> dict[str, Any]:
    req = WorkloadRequest("train", "nlp", "jobset", "v5e", "img", slices=slices, checkpoints=False)
    [obj] = new_workload(plan, req)
    return obj


def annotations(obj: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["annotations"]
    return out


def rules(plan: EnvironmentPlan, obj: dict[str, Any]) -> list[str]:
    report = lint_texts(plan, [("train.yaml", yaml.safe_dump(obj))])
    return [f.rule for v in report.verdicts for f in v.errors]


def test_only_an_environment_with_multi_host_slices_gets_the_topology(plans: dict[str, EnvironmentPlan]) -> None:
    assert "Topology" in kinds(plans["staging"])  # four 2x4 slices of two VMs each, kept
    assert "Topology" not in kinds(plans["dev"])  # single-host v5e 2x2 VMs: pods place one by one
    dev = plans["dev"].queues
    assert dev is not None and not any(f.topology for f in dev.flavors)


@pytest.mark.parametrize(("change", "topology"), [({}, True), ({"min_slices": 0}, False),
                                                   ({"min_slices": 0, "consumption": {"type": "queued"}}, True)],
                         ids=["kept", "scales-to-zero", "queued"])  # fmt: skip
def test_a_slice_pool_is_placed_by_topology_only_where_kueue_sees_its_nodes(
    change: dict[str, Any], topology: bool
) -> None:
    """Kueue's TAS places on nodes that exist (KEP 2724: "support Cluster Autoscaler without
    ProvisioningRequest" is a non-goal; with a ProvisioningRequest check it waits for the nodes)."""
    data = yaml.safe_load((CONFIG / "staging.yaml").read_text())
    for pool in data["tpu_pools"]:
        pool.update(change)
    plan = load_environment_text(yaml.safe_dump(data))
    assert plan.queues is not None
    assert (plan.queues.topology == "tpu-slices") is topology
    [obj] = new_workload(plan, WorkloadRequest("train", "nlp", "jobset", "v5e", "img", checkpoints=False))
    assert (SLICE_REQUIRED in annotations(obj)) is topology  # no request where the flavor has no Topology


def test_the_tpu_flavor_shares_the_cpu_memory_group(plans: dict[str, EnvironmentPlan]) -> None:
    """A TAS pod set takes every resource of a group from a flavor with a topology (Kueue's refusal of
    cpu-memory: tests/e2e/test_slice_topology_on_server.py); cpu-memory keeps no chips, so other pods stay there."""
    plan = plans["staging"]
    assert plan.queues is not None
    objects = queue_manifests(plan.queues, plan.spec.platform.priority_classes)
    nlp = next(o for o in objects if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "nlp")
    first, *rest = nlp["spec"]["resourceGroups"]
    assert first["coveredResources"] == ["cpu", "memory", "google.com/tpu"]
    assert [f["name"] for f in first["flavors"]] == ["cpu-memory", "v5e-2x4"]
    assert first["flavors"][0]["resources"][2] == {"name": "google.com/tpu", "nominalQuota": 0, "borrowingLimit": 0}
    # nlp's 16 nominal chips fill 4 ct5lp-hightpu-4t VMs of 110.65 cores and 183,605 MiB each for pods
    # (tests/platform/test_team_compute.py works the per-VM figures out from GKE's published reservation)
    assert first["flavors"][1]["resources"] == [
        {"name": "cpu", "nominalQuota": "442600m"},
        {"name": "memory", "nominalQuota": "734420Mi"},
        {"name": "google.com/tpu", "nominalQuota": 16},
    ]
    assert [g["coveredResources"] for g in rest] == [["nvidia.com/gpu"]]
    flavor = next(o for o in objects if o["kind"] == "ResourceFlavor" and o["metadata"]["name"] == "v5e-2x4")
    assert flavor["spec"]["topologyName"] == "tpu-slices"


@pytest.mark.parametrize("slices", [1, 2])
def test_workload_new_asks_for_each_slice_in_one_node_pool(plans: dict[str, EnvironmentPlan], slices: int) -> None:
    obj = jobset(plans["staging"], slices)
    got = {k: v for k, v in annotations(obj).items() if k.startswith("kueue.x-k8s.io/")}
    # one child Job per slice, 2 pods each (2x4 on 4-chip VMs); Kueue's JobSet sub-group is the child Job
    assert got == {SLICE_REQUIRED: "cloud.google.com/gke-nodepool", SLICE_SIZE: "2"}
    assert obj["spec"]["replicatedJobs"][0]["replicas"] == slices
    assert rules(plans["staging"], obj) == []


def test_without_a_topology_there_is_no_request_and_no_rule() -> None:
    [prod] = load_environments(CONFIG, ["prod"])
    assert prod.queues is None or prod.queues.topology is None
    plan = next(iter(load_environments(CONFIG, ["staging"])))
    obj = jobset(plan)
    del obj["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]  # not queued: Kueue does not place it
    for key in (SLICE_REQUIRED, SLICE_SIZE):
        del annotations(obj)[key]
    assert "slice-topology" not in rules(plan, obj)


@pytest.mark.parametrize(
    ("change", "slices", "ok"),
    [
        ({SLICE_REQUIRED: None, SLICE_SIZE: None}, 1, False),  # no request: the TAS flavor refuses it
        ({SLICE_SIZE: "4"}, 1, False),  # a "slice" of 4 pods: no 2-VM node pool holds it
        ({SLICE_SIZE: "1"}, 2, False),  # a slice of 1 pod: a slice's pods may take two pools
        ({SLICE_REQUIRED: "kubernetes.io/hostname"}, 1, False),  # the host level: two hosts per slice
        ({SLICE_REQUIRED: None, SLICE_SIZE: None, REQUIRED: "cloud.google.com/gke-nodepool"}, 2, False),  # one pool
        ({SLICE_REQUIRED: None, SLICE_SIZE: None, REQUIRED: "cloud.google.com/gke-nodepool"}, 1, True),  # the same
        ({}, 2, True),
    ],
    ids=["none", "size-too-large", "size-too-small", "host-level", "required-two-slices", "required-one", "as-made"],
)
def test_slice_topology_rule(
    plans: dict[str, EnvironmentPlan], change: dict[str, str | None], slices: int, ok: bool
) -> None:
    obj = copy.deepcopy(jobset(plans["staging"], slices))
    held = annotations(obj)
    for key, value in change.items():
        if value is None:
            held.pop(key, None)
        else:
            held[key] = value
    found = rules(plans["staging"], obj)
    assert ("slice-topology" not in found) is ok, found
