"""The capacity ladders on a real API server, with the real Kueue and JobSet controllers (webhooks
registered), kube-scheduler and kwok. The environment is config/staging.yaml as shipped (its L4 ladder:
l4-reserved, reservation r-l4-serve, 2 nodes -> l4-serve, on-demand, 1 -> l4-spot, Spot, 2; the teams'
L4 shares fill those rungs in order: nlp 1 reserved; serving 1 reserved, 1 on-demand, 2 Spot) with its
v5e 2x4 slices replaced by the reservation -> on-demand -> Spot ladder of
tests/fixtures/capacity/staging-ladder.yaml (ct5lp-hightpu-4t: 2 VMs of 4 chips, 8 chips a slice; pools
v5e-reserved 1 slice, v5e-slice 1 slice, v5e-spot 2 slices). One control plane, one Kueue for both.

- The generated ComputeClasses are stored by the server through a ComputeClass CRD written by hand from
  GKE's documented fields (constructs/gke_accel/twin/computeclass-crd.yaml; GKE ships the real one), with
  strict field validation, and the CRD refuses what GKE documents as invalid.
- v5e: team nlp's nominal 16 chips are split over the ladder in order (8 on the reservation, 8
  on-demand); its JobSets are what ``gke-accel workload new`` writes (they select the class, not a rung).
  With the reservation flavor full the next one is admitted on-demand, the one after on Spot (borrowing
  the idle Spot quota of research and serving); when the reservation frees, the next goes there first.
  Each admitted JobSet's pods run on nodes of its rung (the flavor's node labels as the server stores them).
- L4 (staging's shipped ladder): the ComputeClass, flavors and ClusterQueues on the server are those of
  config/staging.yaml; serving's one-GPU Jobs from ``workload new`` fill the reservation (its own share,
  then nlp's idle one), then on-demand, then Spot; when a reserved GPU frees, the next Job goes back to
  it. Each pod's node is in the pools of the class's rule of the same rank as the Kueue flavor.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.capacity.compute_class import compute_classes
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.environment import COMPUTECLASS_CRD
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import KueueController, install_crds
from gke_accel.twin.nodes import pool_node
from gke_accel.twin.webhooks import WebhookCA
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from helpers import base_config, to_yaml
from require import build_output, require_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "capacity"
STAGING = Path(__file__).resolve().parents[2] / "config" / "staging.yaml"
CRD = COMPUTECLASS_CRD
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
# the v5e ladder's flavors, written by hand from the fixture's rungs: <shape>-<rung>
RESERVATION, ON_DEMAND, SPOT = "v5e-2x4-reservation-r-ml-1", "v5e-2x4-on-demand", "v5e-2x4-spot"
# staging's L4 ladder, written by hand from config/staging.yaml (capacity.l4 and gpu_pools)
L4_RESERVATION, L4_ON_DEMAND, L4_SPOT = "l4-reservation-r-l4-serve", "l4-on-demand", "l4-spot"
L4_RUNG_POOLS = [["l4-reserved"], ["l4-serve"], ["l4-spot"]]


@cache
def shipped_staging() -> EnvironmentPlan:
    return load_environment_text(STAGING.read_text(), expected_name="staging")


@cache
def environment() -> EnvironmentPlan:
    """config/staging.yaml with its v5e slices and v5e ladder from tests/fixtures/capacity/staging-ladder.yaml;
    the rest (the L4 pools and ladder, the teams, the queues) as shipped."""
    data = yaml.safe_load(STAGING.read_text())
    split = yaml.safe_load((FIXTURES / "staging-ladder.yaml").read_text())
    data["tpu_pools"] = split["tpu_pools"]
    data["capacity"] = {**data["capacity"], "v5e-2x4": split["capacity"]["v5e-2x4"]}
    return load_environment_text(to_yaml(data), expected_name="staging")


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
    declared = {c["metadata"]["name"]: c for c in compute_classes(ladders_of(applied))}
    assert set(declared) == {"l4", "v5e-2x4"}
    stored = cluster.get("computeclass.cloud.google.com", "v5e-2x4")
    assert stored["spec"] == declared["v5e-2x4"]["spec"]
    assert [r["nodepools"] for r in stored["spec"]["priorities"]] == [
        ["v5e-reserved"], ["v5e-slice"], ["v5e-spot-s0", "v5e-spot-s1"]
    ]  # fmt: skip
    # staging's L4 class as shipped (config/staging.yaml), one nodepools rule per rung in the ladder's order
    [shipped] = compute_classes(ladders_of(shipped_staging()))
    stored = cluster.get("computeclass.cloud.google.com", "l4")
    assert stored["spec"] == shipped["spec"]
    assert [r["nodepools"] for r in stored["spec"]["priorities"]] == L4_RUNG_POOLS


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


def gpu_job(name: str) -> dict[str, Any]:
    """``gke-accel workload new --env staging --team serving --kind job --accelerator l4 --cpu 100m
    --memory 64Mi --no-checkpoints``: one pod, one L4, selecting the ComputeClass l4 (no rung)."""
    request = WorkloadRequest(
        name=name, team="serving", kind="job", accelerator="l4", image="registry.k8s.io/pause:3.10", cpu="100m",
        memory="64Mi", checkpoints=False,
    )  # fmt: skip
    [obj] = new_workload(shipped_staging(), request)
    selector = obj["spec"]["template"]["spec"]["nodeSelector"]
    # the class, GKE's L4 label and the whole-GPU unit every GPU pool carries (docs/queues.md "Split GPUs")
    assert selector == {"cloud.google.com/compute-class": "l4", "cloud.google.com/gke-accelerator": "nvidia-l4",
                        "gke-accel/gpu-unit": "whole"}  # fmt: skip
    return obj


def job_workload(c: LocalCluster, name: str) -> dict[str, Any] | None:
    for w in c.get("workloads.kueue.x-k8s.io", namespace="serving").get("items", []):
        if any(ref["name"] == name and ref["kind"] == "Job" for ref in w["metadata"].get("ownerReferences", [])):
            return dict(w)
    return None


def gpu_flavor(c: LocalCluster, name: str) -> str | None:
    w = job_workload(c, name)
    conditions = (w or {}).get("status", {}).get("conditions", [])
    if not any(x["type"] == "Admitted" and x["status"] == "True" for x in conditions):
        return None
    [assignment] = w["status"]["admission"]["podSetAssignments"]  # type: ignore[index]
    return str(assignment["flavors"]["nvidia.com/gpu"])


def l4_node_pool(c: LocalCluster, name: str, flavor: str) -> str | None:
    """The node pool of the Job's Running pod, whose node has every node label of ``flavor`` as stored."""
    labels = c.get("resourceflavor.kueue.x-k8s.io", flavor)["spec"]["nodeLabels"]
    pods = [p for p in c.get("pods", namespace="serving").get("items", [])
            if p["metadata"].get("labels", {}).get("batch.kubernetes.io/job-name") == name
            and "deletionTimestamp" not in p["metadata"]]  # fmt: skip
    if len(pods) != 1 or pods[0]["status"].get("phase") != "Running":
        return None
    node = c.get("node", pods[0]["spec"]["nodeName"])["metadata"]["labels"]
    assert all(node.get(k) == v for k, v in labels.items()), f"{name}'s pod is not on a {flavor} node"
    return str(node["cloud.google.com/gke-nodepool"])


def gpu_group(cq: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The GPU resource group of a ClusterQueue: (flavor, resource, nominal quota) in the listed order,
    quantities as the server stores them (strings)."""
    [group] = [g for g in cq["spec"]["resourceGroups"] if g["coveredResources"] == ["nvidia.com/gpu"]]
    return [(f["name"], r["name"], str(r["nominalQuota"])) for f in group["flavors"] for r in f["resources"]]


def test_staging_l4_jobs_fill_each_rung_in_the_ladders_order_and_come_back_to_the_reservation(
    cluster: LocalCluster, kueue: KueueController
) -> None:
    c = cluster
    shipped = shipped_staging()
    plan = queue_plan_of(shipped)
    assert plan is not None
    # the objects on the server are staging's as shipped: the L4 flavors and every team's L4 quotas
    objects = queue_manifests(plan, shipped.spec.platform.priority_classes)
    for flavor in (o for o in objects if o["kind"] == "ResourceFlavor" and o["metadata"]["name"].startswith("l4-")):
        assert c.get("resourceflavor.kueue.x-k8s.io", flavor["metadata"]["name"])["spec"] == flavor["spec"]
    for cq in (o for o in objects if o["kind"] == "ClusterQueue"):
        stored = c.get("clusterqueue.kueue.x-k8s.io", cq["metadata"]["name"])
        assert gpu_group(stored) == gpu_group(cq), cq["metadata"]["name"]
        assert [f for f, _, _ in gpu_group(stored)] == [L4_RESERVATION, L4_ON_DEMAND, L4_SPOT]
    serving = c.get("clusterqueue.kueue.x-k8s.io", "serving")  # serving's 4: 1 reserved, 1 on-demand, 2 Spot
    assert [q for _, _, q in gpu_group(serving)] == ["1", "1", "2"]
    rules = [r["nodepools"] for r in c.get("computeclass.cloud.google.com", "l4")["spec"]["priorities"]]
    rank = {L4_RESERVATION: 0, L4_ON_DEMAND: 1, L4_SPOT: 2}  # the flavors' order, as the ClusterQueues list them

    start = time.monotonic()
    order: list[str] = []

    def submit(name: str, want: str) -> None:
        c.apply([gpu_job(name)])
        c.wait_for(lambda: gpu_flavor(c, name) is not None, what=f"Job {name} admitted")
        flavor = gpu_flavor(c, name)
        assert flavor == want, (name, flavor)
        pool = c.wait_for(lambda: l4_node_pool(c, name, want), timeout=90, what=f"{name}'s pod Running on {want}")
        assert pool in rules[rank[want]], (name, pool, rules)  # the class's rule of the flavor's rank
        order.append(str(flavor))

    # serving's own reserved GPU, then nlp's idle one (borrowed: the flavor fits, Kueue stops there)
    submit("a", L4_RESERVATION)
    submit("b", L4_RESERVATION)
    submit("c", L4_ON_DEMAND)  # the reservation's 2 GPUs are taken: the next rung
    submit("d", L4_SPOT)  # on-demand's 1 too
    submit("e", L4_SPOT)
    assert order == [L4_RESERVATION, L4_RESERVATION, L4_ON_DEMAND, L4_SPOT, L4_SPOT]
    # a reserved GPU frees: the next Job goes back to the reservation, nobody else moves
    c.kubectl("delete", "job.batch", "a", "-n", "serving", "--cascade=foreground", "--wait=true")
    c.wait_for(lambda: job_workload(c, "a") is None, what="Job a's workload gone")
    submit("f", L4_RESERVATION)
    assert [gpu_flavor(c, n) for n in "bcde"] == [L4_RESERVATION, L4_ON_DEMAND, L4_SPOT, L4_SPOT]
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
