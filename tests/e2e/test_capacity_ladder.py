"""The capacity ladder on a real API server, with the real Kueue and JobSet controllers (webhooks
registered), kube-scheduler and kwok: tests/fixtures/capacity/staging-ladder.yaml, config/staging.yaml
with a reservation -> on-demand -> Spot ladder for its v5e 2x4 slices (ct5lp-hightpu-4t: 2 VMs of 4
chips, 8 chips a slice; pools v5e-reserved 1 slice, v5e-slice 1 slice, v5e-spot 2 slices).

- The generated ComputeClass is stored by the server through a ComputeClass CRD written by hand from
  GKE's documented fields (tests/fixtures/capacity/computeclass-crd.yaml; GKE ships the real one), with
  strict field validation, and the CRD refuses what GKE documents as invalid.
- Team nlp's nominal 16 chips are split over the ladder in order (8 on the reservation, 8 on-demand);
  its JobSets are what ``gke-accel workload new`` writes (they select the class, not a rung). With the
  reservation flavor full the next one is admitted on-demand, the one after on Spot (borrowing the idle
  Spot quota of research and serving); when the reservation frees, the next goes there first. Each
  admitted JobSet's pods run on nodes of its rung (the flavor's node labels as the server stores them).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment, load_environment_text
from gke_accel.model.capacity.compute_class import compute_classes
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import KueueController, install_crds
from gke_accel.twin.nodes import pool_node
from gke_accel.twin.webhooks import WebhookCA
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from helpers import base_config, to_yaml
from require import build_output, require_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "capacity"
CRD = FIXTURES / "computeclass-crd.yaml"
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
# the ladder's flavors, written by hand from the fixture's rungs: <shape>-<rung>
RESERVATION, ON_DEMAND, SPOT = "v5e-2x4-reservation-r-ml-1", "v5e-2x4-on-demand", "v5e-2x4-spot"


def environment() -> EnvironmentPlan:
    return load_environment(FIXTURES / "staging-ladder.yaml")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[LocalCluster]:
    with own_cluster(tmp_path_factory.mktemp("k8s-ladder"), complete_jobs=False) as c:
        yield c


@pytest.fixture(scope="module")
def applied(cluster: LocalCluster) -> EnvironmentPlan:
    try:
        install_crds(cluster)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))
    install_crds(cluster, [CRD])
    env = environment()
    plan = queue_plan_of(env)
    assert plan is not None
    platform = platform_manifests(env)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    cluster.apply([m for m in platform if m["kind"] in ("ResourceQuota", "ServiceAccount", "LimitRange")])
    cluster.apply(queue_manifests(plan, env.spec.platform.priority_classes))
    cluster.apply(compute_classes(ladders_of(env)), "--server-side", "--field-manager=gke-accel", "--validate=strict")
    cluster.create_nodes([pool_node(pool, i) for pool in env.pools for i in range(pool.node_bounds()[1])])
    return env


def test_the_generated_compute_class_is_stored_as_declared(cluster: LocalCluster, applied: EnvironmentPlan) -> None:
    [declared] = compute_classes(ladders_of(applied))
    stored = cluster.get("computeclass.cloud.google.com", "v5e-2x4")
    assert stored["spec"] == declared["spec"]
    assert [r["nodepools"] for r in stored["spec"]["priorities"]] == [
        ["v5e-reserved"], ["v5e-slice"], ["v5e-spot-s0", "v5e-spot-s1"]
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        ({"nodepools": ["v5e-slice"], "spot": True}, "a nodepools rule takes no other field"),
        ({"machineFamily": "ct5lp", "spot": True, "flexStart": {"enabled": True}}, "flexStart and spot"),
        ({"machineFamily": "ct5lp", "reservations": {"affinity": "Specific"}}, "affinity Specific needs"),
        ({"machineFamily": "ct5lp", "preemptible": True}, "field not declared in schema"),
    ],
    ids=["nodepools-alone", "flex-start-not-spot", "specific-names-one", "unknown-field"],
)
def test_the_crd_refuses_what_gke_documents_as_invalid(
    cluster: LocalCluster, applied: EnvironmentPlan, rule: dict[str, Any], error: str
) -> None:
    bad = {"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "bad"},
           "spec": {"priorities": [rule], "whenUnsatisfiable": "DoNotScaleUp"}}  # fmt: skip
    result = cluster.kubectl("apply", "--server-side", "--validate=strict", "-f", "-", stdin=to_yaml(bad), check=False)
    assert result.returncode != 0 and error in result.stderr, result.stderr


@pytest.fixture(scope="module")
def kueue(cluster: LocalCluster, applied: EnvironmentPlan, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[KueueController]:  # fmt: skip
    plan = queue_plan_of(applied)
    assert plan is not None
    state = tmp_path_factory.mktemp("kueue-ladder")
    ca = WebhookCA(state / "webhook-ca")
    try:
        jobset = JobSetController.start(cluster, state / "jobset", ca)
    except subprocess.CalledProcessError as exc:
        require_or_skip("the JobSet controller could not be built", output=build_output(exc))
    try:
        controller = KueueController.start(cluster, kueue_configuration(plan), state / "kueue", ca)
    except subprocess.CalledProcessError as exc:
        jobset.stop()
        require_or_skip("the Kueue controller could not be built (tools/kueue/build.sh)", output=build_output(exc))
    try:
        yield controller
    finally:
        controller.stop()
        jobset.stop()


def slice_job(name: str) -> dict[str, Any]:
    """``gke-accel workload new --team nlp --kind jobset --accelerator v5e --cpu 100m --memory 64Mi --no-checkpoints``:
    one 2x4 slice (a JobSet of 2 pods, 4 chips each), selecting the ComputeClass."""
    request = WorkloadRequest(
        name=name, team="nlp", kind="jobset", accelerator="v5e", image="registry.k8s.io/pause:3.10", cpu="100m",
        memory="64Mi",
        checkpoints=False,
    )  # fmt: skip
    [obj] = new_workload(environment(), request)
    selector = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelector"]
    assert selector["cloud.google.com/compute-class"] == "v5e-2x4" and "gke-accel/capacity-rung" not in selector
    return obj


def workload_of(c: LocalCluster, name: str) -> dict[str, Any] | None:
    for w in c.get("workloads.kueue.x-k8s.io", namespace="nlp").get("items", []):
        if any(ref["name"] == name for ref in w["metadata"].get("ownerReferences", [])):
            return dict(w)
    return None


def admitted_flavor(c: LocalCluster, name: str) -> str | None:
    w = workload_of(c, name)
    conditions = (w or {}).get("status", {}).get("conditions", [])
    if not any(x["type"] == "Admitted" and x["status"] == "True" for x in conditions):
        return None
    [assignment] = w["status"]["admission"]["podSetAssignments"]  # type: ignore[index]
    return str(assignment["flavors"]["google.com/tpu"])


def running_on(c: LocalCluster, name: str, flavor: str) -> bool:
    """The JobSet's 2 pods Running on nodes with every node label of ``flavor`` as the server stores it."""
    labels = c.get("resourceflavor.kueue.x-k8s.io", flavor)["spec"]["nodeLabels"]
    items = c.get("pods", namespace="nlp").get("items", [])
    pods = [p for p in items if p["metadata"].get("labels", {}).get(JOBSET_NAME) == name]
    pods = [p for p in pods if "deletionTimestamp" not in p["metadata"]]
    if len(pods) != 2 or not all(p["status"].get("phase") == "Running" for p in pods):
        return False
    for p in pods:
        node = c.get("node", p["spec"]["nodeName"])["metadata"]["labels"]
        assert all(node.get(k) == v for k, v in labels.items()), f"{p['metadata']['name']} not on a {flavor} node"
    return True


def test_jobs_fall_down_the_ladder_only_when_the_better_rung_is_full_and_come_back_first(
    cluster: LocalCluster, kueue: KueueController
) -> None:
    c = cluster
    start = time.monotonic()
    c.apply([slice_job("first")])
    c.wait_for(lambda: admitted_flavor(c, "first") == RESERVATION, what="the first slice on the reservation")
    c.wait_for(lambda: running_on(c, "first", RESERVATION), timeout=90, what="its pods on v5e-reserved nodes")
    c.apply([slice_job("second")])
    c.wait_for(lambda: admitted_flavor(c, "second") is not None, what="the second slice admitted")
    assert admitted_flavor(c, "second") == ON_DEMAND  # the reservation is full
    c.wait_for(lambda: running_on(c, "second", ON_DEMAND), timeout=90, what="its pods on v5e-slice nodes")
    c.apply([slice_job("third")])
    c.wait_for(lambda: admitted_flavor(c, "third") is not None, what="the third slice admitted")
    assert admitted_flavor(c, "third") == SPOT  # reservation and on-demand full: Spot, borrowing idle quota
    c.wait_for(lambda: running_on(c, "third", SPOT), timeout=90, what="its pods on v5e-spot nodes")
    # the reservation frees: the next job goes there first (not to the Spot quota still free)
    c.kubectl("delete", "jobset.jobset.x-k8s.io", "first", "-n", "nlp", "--cascade=foreground", "--wait=true")
    c.wait_for(lambda: workload_of(c, "first") is None, what="the first slice's workload gone")
    c.apply([slice_job("fourth")])
    c.wait_for(lambda: admitted_flavor(c, "fourth") is not None, what="the fourth slice admitted")
    assert admitted_flavor(c, "fourth") == RESERVATION
    c.wait_for(lambda: running_on(c, "fourth", RESERVATION), timeout=90, what="its pods on v5e-reserved nodes")
    assert (admitted_flavor(c, "second"), admitted_flavor(c, "third")) == (ON_DEMAND, SPOT)  # nobody moved
    assert time.monotonic() - start < 300


def test_a_queued_pools_run_duration_is_stored_by_the_pinned_kueue_crd(
    cluster: LocalCluster, applied: EnvironmentPlan
) -> None:
    """The ProvisioningRequestConfig of a queued pool with ``max_run_duration_seconds`` (its
    ``parameters.maxRunDurationSeconds``, GKE's DWS page) as the Kueue v0.17 CRD stores it."""
    data = base_config()
    queued = {"type": "queued", "max_run_duration_seconds": 7200}
    data["gpu_pools"] = [
        {"name": "h100-q", "gpu": "h100", "gpus_per_node": 8, "max_nodes": 2, "zones": ["us-central1-a"],
         "consumption": queued}
    ]  # fmt: skip
    data["teams"] = [{"name": "dws", "google_group": "d@acme.example.com", "accelerators": {"h100": 16}}]
    data["queues"] = {}
    env = load_environment_text(to_yaml(data))
    plan = queue_plan_of(env)
    assert plan is not None
    [config] = [o for o in queue_manifests(plan, env.spec.platform.priority_classes)
                if o["kind"] == "ProvisioningRequestConfig"]  # fmt: skip
    cluster.apply([config], "--server-side", "--validate=strict")
    stored = cluster.get("provisioningrequestconfig.kueue.x-k8s.io", config["metadata"]["name"])
    assert stored["spec"]["parameters"] == {"maxRunDurationSeconds": "7200"}
    assert stored["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"


def multislice(name: str, slices: int) -> dict[str, Any]:
    """``gke-accel workload new --team nlp --kind jobset --accelerator v5e --slices N`` (small cpu/memory)."""
    request = WorkloadRequest(
        name=name, team="nlp", kind="jobset", accelerator="v5e", image="registry.k8s.io/pause:3.10", cpu="100m",
        memory="64Mi", checkpoints=False, slices=slices,
    )  # fmt: skip
    [obj] = new_workload(environment(), request)
    return obj


def pod_set_flavors(c: LocalCluster, name: str) -> dict[str, str] | None:
    """Pod set -> TPU flavor of the admitted workload; None until admitted."""
    w = workload_of(c, name)
    conditions = (w or {}).get("status", {}).get("conditions", [])
    if not any(x["type"] == "Admitted" and x["status"] == "True" for x in conditions):
        return None
    return {a["name"]: a["flavors"]["google.com/tpu"] for a in w["status"]["admission"]["podSetAssignments"]}  # type: ignore[index]


def pending_message(c: LocalCluster, name: str) -> str | None:
    w = workload_of(c, name) or {}
    for x in w.get("status", {}).get("conditions", []):
        if x["type"] == "QuotaReserved" and x["status"] == "False" and x.get("reason") == "Pending":
            return str(x.get("message", ""))
    return None


def test_a_multislice_jobset_spreads_over_the_rungs_that_hold_its_slices(
    cluster: LocalCluster, kueue: KueueController
) -> None:
    """W8: 3 slices on a ladder of 1 reserved + 1 on-demand + 2 Spot slices. One replicated job of 3 slices
    is one pod set, given one flavor by Kueue: no rung holds 24 chips, so it is never admitted. What
    ``workload new`` writes (a replicated job per slice) is admitted over three rungs and runs."""
    c = cluster
    c.kubectl("delete", "jobsets.jobset.x-k8s.io", "--all", "-n", "nlp", "--cascade=foreground", "--wait=true")
    c.wait_for(lambda: not c.get("workloads.kueue.x-k8s.io", namespace="nlp").get("items") or None,
               what="nlp's workloads gone")  # fmt: skip
    # rejected: the shape before, every slice in one replicated job
    one = multislice("one-set", 3)
    jobs = one["spec"]["replicatedJobs"]
    one["spec"]["replicatedJobs"] = [{**jobs[0], "name": "workers", "replicas": 3}]
    one["spec"]["coordinator"] = {"replicatedJob": "workers", "jobIndex": 0, "podIndex": 0}
    c.apply([one])
    message = c.wait_for(lambda: pending_message(c, "one-set"), what="Kueue's verdict on one pod set of 3 slices")
    assert "couldn't assign flavors to pod set workers" in message, message
    assert pod_set_flavors(c, "one-set") is None
    c.kubectl("delete", "jobset.jobset.x-k8s.io", "one-set", "-n", "nlp", "--cascade=foreground", "--wait=true")
    c.wait_for(lambda: workload_of(c, "one-set") is None, what="its workload gone")
    # accepted: one pod set per slice, each on the first rung with room
    c.apply([multislice("spread", 3)])
    flavors = c.wait_for(lambda: pod_set_flavors(c, "spread"), what="the 3-slice JobSet admitted")
    assert flavors == {"workers-0": RESERVATION, "workers-1": ON_DEMAND, "workers-2": SPOT}, flavors

    def running_pools() -> dict[str, str] | None:
        items = c.get("pods", namespace="nlp").get("items", [])
        pods = [p for p in items if p["metadata"].get("labels", {}).get(JOBSET_NAME) == "spread"]
        if len(pods) != 6 or not all(p["status"].get("phase") == "Running" for p in pods):
            return None
        return {p["metadata"]["name"]: c.get("node", p["spec"]["nodeName"])["metadata"]["labels"][
            "cloud.google.com/gke-nodepool"] for p in pods}  # fmt: skip

    pools = c.wait_for(running_pools, timeout=90, what="the 6 pods of 3 slices Running")
    by_slice = {k: {pool for pod, pool in pools.items() if pod.startswith(f"spread-workers-{k}-")} for k in range(3)}
    assert by_slice[0] == {"v5e-reserved"} and by_slice[1] == {"v5e-slice"}, by_slice
    assert len(by_slice[2]) == 1 and by_slice[2] <= {"v5e-spot-s0", "v5e-spot-s1"}, by_slice  # one slice, whole
