"""Whole TPU slices by topology (model/queues/topology.py): which flavors name the Kueue Topology, the
Topology object, and the multi-host templates' annotations.

Expected names come from Kueue v0.19.2, not from our code: ``kueue.x-k8s.io/podset-slice-required-topology``
and ``kueue.x-k8s.io/podset-slice-size`` (apis/kueue/v1beta2/topology_types.go), ``spec.levels[].nodeLabel``
with ``kubernetes.io/hostname`` only as the last level (the Topology CRD's validation rule), and
``ResourceFlavor.spec.topologyName`` (the ResourceFlavor CRD); the node-pool label is GKE's
(tests/fixtures/gke-nodes/). A multi-host slice is one GKE node pool (GKE "TPUs in GKE": a multi-host
TPU slice node pool is atomic)."""

from __future__ import annotations

from typing import Any

from gke_accel.model import load_environment_text
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from helpers import base_config, to_yaml

SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"


def _config(min_slices: int) -> dict[str, Any]:
    data = base_config()
    data["tpu_pools"] = [
        {"name": "v5e", "generation": "v5e", "topology": "2x4", "machine_type": "ct5lp-hightpu-4t",
         "zone": "us-central1-a", "min_slices": min_slices, "max_slices": 2},
        {"name": "one", "generation": "v5e", "topology": "2x2", "zone": "us-central1-a", "max_slices": 2},
    ]  # fmt: skip
    data["teams"] = [{"name": "research", "google_group": "r@acme.example.com", "accelerators": {"v5e": 16}}]
    data["queues"] = {"enabled": True}
    return data


def _plan(min_slices: int) -> Any:
    return load_environment_text(to_yaml(_config(min_slices)))


def _objects(min_slices: int) -> list[dict[str, Any]]:
    plan = _plan(min_slices)
    queues = queue_plan_of(plan)
    assert queues is not None
    return queue_manifests(queues, plan.spec.platform.priority_classes)


def test_kept_multihost_slices_name_a_topology_of_node_pool_then_host() -> None:
    objs = _objects(min_slices=2)
    [topology] = [o for o in objs if o["kind"] == "Topology"]
    assert topology["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert topology["spec"]["levels"] == [
        {"nodeLabel": "cloud.google.com/gke-nodepool"},
        {"nodeLabel": "kubernetes.io/hostname"},
    ]
    flavors = {o["metadata"]["name"]: o["spec"] for o in objs if o["kind"] == "ResourceFlavor"}
    multi = [s for s in flavors.values() if s.get("nodeLabels", {}).get("cloud.google.com/gke-tpu-topology") == "2x4"]
    assert [s.get("topologyName") for s in multi] == [topology["metadata"]["name"]]
    # single-host slices and cpu/memory keep quota-only admission
    others = [s for s in flavors.values() if s not in multi]
    assert others and all("topologyName" not in s for s in others)
    # the Topology comes before the flavors that name it (one apply, cluster-scoped objects first)
    kinds = [o["kind"] for o in objs]
    assert kinds.index("Topology") < kinds.index("ResourceFlavor")


def test_slices_that_scale_to_zero_get_no_topology() -> None:
    """TAS counts existing nodes only (Kueue KEP-2724 non-goal: cluster autoscaler without
    ProvisioningRequest), so a pool that may have no nodes would never admit its jobs."""
    objs = _objects(min_slices=0)
    assert not [o for o in objs if o["kind"] == "Topology"]
    assert all("topologyName" not in o["spec"] for o in objs if o["kind"] == "ResourceFlavor")


def _jobset(min_slices: int, slices: int) -> dict[str, Any]:
    req = WorkloadRequest(name="train", team="research", kind=None, accelerator="v5e", image="trainer:1", chips=8,
                          slices=slices)  # fmt: skip
    [obj] = new_workload(_plan(min_slices), req)
    return obj


def test_multislice_template_asks_for_one_whole_slice_per_child_job() -> None:
    js = _jobset(min_slices=2, slices=2)
    [rj] = js["spec"]["replicatedJobs"]
    assert rj["replicas"] == 2
    annotations = rj["template"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations[SLICE_REQUIRED] == "cloud.google.com/gke-nodepool"
    assert annotations[SLICE_SIZE] == str(rj["template"]["spec"]["parallelism"]) == "2"  # 2x4 = 2 VMs


def test_without_a_topology_flavor_the_template_has_no_tas_request() -> None:
    """Kueue refuses a TAS request on a flavor without topologyName, so none is written then."""
    js = _jobset(min_slices=0, slices=1)
    [rj] = js["spec"]["replicatedJobs"]
    annotations = rj["template"]["spec"]["template"].get("metadata", {}).get("annotations", {})
    assert SLICE_REQUIRED not in annotations and SLICE_SIZE not in annotations
