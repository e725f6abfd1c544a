"""Queues on a real API server with the pinned Kueue/JobSet CRDs, and the real Kueue controller.

Three teams share 32 v5e chips (two 4x4 slices of four 4-chip hosts; q-research 16, q-nlp 8,
q-serving 8, q-serving may preempt when borrowing) plus Spot L4 GPUs. Fake nodes carry the labels, taints and
allocatable of the same node-pool plans the pools are rendered from.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kueue_controller import KueueController, install_crds
from localcluster import LocalCluster
from nodes import pool_node

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues import QUEUE_LABEL
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.names import PRIORITY_LABEL
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.model.queues.plan import QueuePlan
from helpers import base_config, to_yaml

TEAMS = ("q-research", "q-nlp", "q-serving")  # not the other e2e tests' namespaces
PRIORITY = {"inference": "inference", "training": "training", "batch": "batch"}


def shared_environment() -> tuple[EnvironmentPlan, QueuePlan]:
    data = base_config()
    data["tpu_pools"] = [
        {"name": "v5e", "generation": "v5e", "topology": "4x4", "zone": "us-central1-a", "max_slices": 2}
    ]
    data["gpu_pools"] = [{"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 4, "consumption": "spot"}]
    data["teams"] = [
        {"name": "q-research", "google_group": "r@acme.example.com", "accelerators": {"v5e": 16}},
        {"name": "q-nlp", "google_group": "n@acme.example.com", "accelerators": {"v5e": 8, "l4": 2}},
        {"name": "q-serving", "google_group": "s@acme.example.com", "accelerators": {"v5e": 8, "l4": 2}},
    ]
    data["queues"] = {"teams": {"q-serving": {"preempt_when_borrowing": True}}}
    env = load_environment_text(to_yaml(data))
    plan = queue_plan_of(env)  # the ResourceQuotas of platform_manifests(env) are the Kueue ceilings
    assert plan is not None
    return env, plan


def fake_nodes(env: EnvironmentPlan) -> list[dict[str, Any]]:
    """Every accelerator node the pools can have, as GKE shows them (``nodes.pool_node``: node_shape)."""
    return [pool_node(pool, i) for pool in env.pools for i in range(pool.node_bounds()[1])]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, control_plane: None) -> Iterator[LocalCluster]:
    """A control plane of this module's own: the scenarios count every Kueue workload and node, so
    objects that other modules leave on the session cluster must not reach them."""
    c = LocalCluster.start(tmp_path_factory.mktemp("k8s-queues"))
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def crds(cluster: LocalCluster) -> list[Path]:
    try:
        return install_crds(cluster)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        pytest.skip(f"Kueue/JobSet modules not available from the Go module cache or proxy: {exc}")


@pytest.fixture(scope="module")
def queues_applied(cluster: LocalCluster, crds: list[Path]) -> tuple[EnvironmentPlan, QueuePlan]:
    env, plan = shared_environment()
    platform = platform_manifests(env)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    # the teams' fences as shipped: the quotas (the Kueue ceilings) and the LimitRanges Kueue applies
    # when it builds a Workload (real-engines F1: their accelerator defaults decided the flavors)
    cluster.apply([m for m in platform if m["kind"] in ("ResourceQuota", "LimitRange")])
    cluster.apply(queue_manifests(plan, env.spec.platform.priority_classes))
    cluster.create_nodes(fake_nodes(env))
    return env, plan


def test_every_generated_kueue_object_is_accepted_with_the_pinned_crds(
    cluster: LocalCluster, queues_applied: tuple[EnvironmentPlan, QueuePlan]
) -> None:
    env, plan = queues_applied
    for manifest in queue_manifests(plan, env.spec.platform.priority_classes):
        meta = manifest["metadata"]
        stored = cluster.get(f"{manifest['kind'].lower()}.kueue.x-k8s.io", meta["name"], meta.get("namespace"))
        assert stored["apiVersion"] == "kueue.x-k8s.io/v1beta2"
        if "spec" in manifest and manifest["kind"] != "ClusterQueue":
            assert stored["spec"] == {**stored["spec"], **manifest["spec"]}
    cq = cluster.get("clusterqueue.kueue.x-k8s.io", "q-serving")
    assert cq["spec"]["cohortName"] == "test"
    assert cq["spec"]["preemption"]["borrowWithinCohort"]["policy"] == "LowerPriority"


def test_an_invalid_cluster_queue_is_refused_by_the_crd(
    cluster: LocalCluster, queues_applied: tuple[EnvironmentPlan, QueuePlan]
) -> None:
    env, plan = queues_applied
    [cq] = [m for m in queue_manifests(plan, env.spec.platform.priority_classes) if m["kind"] == "ClusterQueue"][:1]
    bad = {**cq, "metadata": {"name": "no-cohort"}, "spec": {**cq["spec"]}}
    del bad["spec"]["cohortName"]
    bad["spec"]["resourceGroups"][1]["flavors"][0]["resources"][0]["borrowingLimit"] = 4
    result = cluster.kubectl("apply", "-f", "-", stdin=to_yaml(bad), check=False)
    assert result.returncode != 0 and "borrowingLimit must be nil when cohort is empty" in result.stderr


# --- the real controller ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kueue(
    cluster: LocalCluster, queues_applied: tuple[EnvironmentPlan, QueuePlan], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KueueController]:
    _, plan = queues_applied
    try:
        controller = KueueController.start(cluster, kueue_configuration(plan), tmp_path_factory.mktemp("kueue"))
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"the Kueue controller could not be built: {exc.stderr[-500:] if exc.stderr else exc}")
    try:
        yield controller
    finally:
        controller.stop()


def job(team: str, name: str, hosts: int, chips: int = 4, priority: str = "training") -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": team,
            "labels": {QUEUE_LABEL: "team", PRIORITY_LABEL: PRIORITY[priority]},
        },
        "spec": {
            "suspend": True,  # no Kueue webhook here: Jobs start suspended, Kueue unsuspends them
            "parallelism": hosts,
            "completions": hosts,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    # team namespaces enforce the restricted Pod Security profile
                    "securityContext": {
                        "runAsNonRoot": True,
                        "runAsUser": 65534,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "containers": [
                        {
                            "name": "train",
                            "image": "registry.k8s.io/pause:3.10",
                            "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
                            "resources": {
                                "requests": {"google.com/tpu": str(chips), "cpu": "100m", "memory": "64Mi"},
                                "limits": {"google.com/tpu": str(chips)},
                            },
                        }
                    ],
                }
            },
        },
    }


def workload_of(cluster: LocalCluster, namespace: str, owner: str) -> dict[str, Any] | None:
    items = cluster.get("workloads.kueue.x-k8s.io", namespace=namespace).get("items", [])
    for w in items:
        if any(ref["name"] == owner for ref in w["metadata"].get("ownerReferences", [])):
            return w
    return None


def condition(w: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    for c in (w or {}).get("status", {}).get("conditions", []):
        if c["type"] == kind and c["status"] == "True":
            return c
    return None


def admitted(cluster: LocalCluster, namespace: str, name: str) -> bool:
    return condition(workload_of(cluster, namespace, name), "Admitted") is not None


def clean(cluster: LocalCluster) -> None:
    for team in TEAMS:
        cluster.kubectl("delete", "jobs,jobsets.jobset.x-k8s.io", "--all", "-n", team, "--wait=true",
                        "--cascade=foreground", check=False)  # fmt: skip
    cluster.wait_for(
        lambda: all(not cluster.get("workloads.kueue.x-k8s.io", namespace=t).get("items") for t in TEAMS),
        what="workloads of deleted jobs gone",
    )


@pytest.fixture
def fresh_queues(cluster: LocalCluster, kueue: KueueController) -> Iterator[LocalCluster]:
    clean(cluster)
    try:
        yield cluster
    finally:
        clean(cluster)


def test_within_nominal_is_admitted_with_the_flavor_node_labels(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    start = time.monotonic()
    c.apply([job("q-research", "within", hosts=4)])
    c.wait_for(lambda: admitted(c, "q-research", "within"), what="a 16-chip job within research's nominal admitted")
    w = workload_of(c, "q-research", "within")
    assert w is not None
    [assignment] = w["status"]["admission"]["podSetAssignments"]
    assert assignment["flavors"]["google.com/tpu"] == "v5e-4x4" and assignment["count"] == 4
    # F1: with the team LimitRange applied, the TPU job gets no GPU flavor (the old "0" defaults gave it l4)
    assert set(assignment["flavors"]) == {"google.com/tpu", "cpu", "memory"}, assignment["flavors"]
    stored = c.get("job", "within", "q-research")
    assert stored["spec"]["suspend"] is False
    selector = stored["spec"]["template"]["spec"]["nodeSelector"]
    assert selector["cloud.google.com/gke-tpu-topology"] == "4x4"
    assert "cloud.google.com/gke-accelerator" not in selector  # no GPU flavor's node label injected
    # the ResourceQuota (set to the Kueue ceiling) lets every pod of the admitted job in
    c.wait_for(lambda: len(c.get("pods", namespace="q-research")["items"]) == 4, what="4 pods created")
    assert time.monotonic() - start < 30


def test_over_nominal_waits_then_borrows_idle_chips_then_the_lender_reclaims(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    c.apply([job("q-research", "own", hosts=4), job("q-nlp", "nlp-own", hosts=2)])
    c.wait_for(lambda: admitted(c, "q-research", "own") and admitted(c, "q-nlp", "nlp-own"), what="nominal jobs")
    # research asks for 16 more: only serving's 8 are idle, so it waits
    c.apply([job("q-research", "borrow", hosts=4, priority="batch")])
    time.sleep(3)
    assert not admitted(c, "q-research", "borrow")
    w = workload_of(c, "q-research", "borrow")
    assert w is not None and condition(w, "QuotaReserved") is None
    # nlp finishes: 16 idle chips (nlp's 8 + serving's 8), research borrows them
    c.kubectl("delete", "job", "nlp-own", "-n", "q-nlp", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-research", "borrow"), what="the over-nominal job borrows idle chips")
    # the ResourceQuota (the Kueue ceiling, 32 chips) lets the borrowing job's pods in: 8 pods x 4 chips
    c.wait_for(lambda: len(c.get("pods", namespace="q-research")["items"]) == 8, what="8 pods of 2 admitted jobs")
    # nlp wants its share back: its training reclaims by preempting research's borrowing *batch* job
    # (reclaimWithinCohort: LowerPriority; equal-priority borrowers: the next test)
    c.apply([job("q-nlp", "nlp-back", hosts=2)])
    c.wait_for(lambda: admitted(c, "q-nlp", "nlp-back"), what="the lending team's new job admitted")
    evicted = condition(workload_of(c, "q-research", "borrow"), "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted"
    assert admitted(c, "q-research", "own")  # research's nominal job is untouched


def test_inference_preempts_training_not_the_reverse(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    c.apply(
        [job("q-research", "r-train", hosts=4), job("q-nlp", "n-train", hosts=2), job("q-serving", "train", hosts=2)]
    )
    full = [("q-research", "r-train"), ("q-nlp", "n-train"), ("q-serving", "train")]
    c.wait_for(lambda: all(admitted(c, *t) for t in full), what="the cohort full (32 of 32 chips)")
    # a training job cannot push anyone out
    c.apply([job("q-serving", "train-2", hosts=2)])
    time.sleep(3)
    assert not admitted(c, "q-serving", "train-2")
    assert all(
        condition(workload_of(c, *t), "Evicted") is None
        for t in [("q-research", "r-train"), ("q-nlp", "n-train"), ("q-serving", "train")]
    )
    c.kubectl("delete", "job", "train-2", "-n", "q-serving")
    # inference preempts serving's own training
    c.apply([job("q-serving", "serve", hosts=2, priority="inference")])
    c.wait_for(lambda: admitted(c, "q-serving", "serve"), what="the inference job admitted")
    evicted = condition(workload_of(c, "q-serving", "train"), "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted"


def evicted(cluster: LocalCluster, namespace: str, name: str) -> dict[str, Any] | None:
    return condition(workload_of(cluster, namespace, name), "Evicted")


def test_a_borrowing_inference_job_is_not_preempted_by_a_reclaiming_training_job(fresh_queues: LocalCluster) -> None:
    """Clause (a), real-engines Part B ser-25: with reclaimWithinCohort Any, training of the lending teams
    reclaimed their chips from a borrowing inference job four times."""
    c = fresh_queues
    # research within nominal (16), serving's inference at its peak: 16 = nominal 8 + 8 borrowed from nlp
    c.apply([job("q-research", "own", hosts=4), job("q-serving", "peak", hosts=4, priority="inference")])
    c.wait_for(lambda: admitted(c, "q-research", "own") and admitted(c, "q-serving", "peak"), what="32 of 32 chips")

    def tpu_usage() -> tuple[str, str]:
        cq = c.get("clusterqueue.kueue.x-k8s.io", "q-serving")
        flavors = cq.get("status", {}).get("flavorsUsage", [])
        used = [r for f in flavors for r in f["resources"] if r["name"] == "google.com/tpu"]
        return (used[0].get("total", "0"), used[0].get("borrowed", "0")) if used else ("0", "0")

    # the inference job is borrowing (the ClusterQueue status follows the admission within seconds)
    assert c.wait_for(lambda: tpu_usage() == ("16", "8") and tpu_usage(), what="serving's usage 16, 8 borrowed")
    # nlp's training within its nominal quota (8) waits: it may not reclaim from a higher priority
    c.apply([job("q-nlp", "reclaim", hosts=2)])
    c.wait_for(lambda: workload_of(c, "q-nlp", "reclaim") is not None, what="the training job's workload")
    time.sleep(5)  # several Kueue scheduling cycles
    assert not admitted(c, "q-nlp", "reclaim")
    assert evicted(c, "q-serving", "peak") is None and evicted(c, "q-research", "own") is None
    # the peak is over: nlp gets its nominal quota back
    c.kubectl("delete", "job", "peak", "-n", "q-serving", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-nlp", "reclaim"), what="nlp's training admitted after the peak")


def test_inference_at_its_peak_takes_borrowed_chips_from_other_teams_training(fresh_queues: LocalCluster) -> None:
    """Inference borrows by preempting another team's *borrowing* training (borrowWithinCohort LowerPriority,
    maxPriorityThreshold = training); training within its team's nominal quota is never a victim."""
    c = fresh_queues
    c.apply([job("q-research", "own", hosts=4), job("q-research", "borrow", hosts=4)])  # 16 + 16 borrowed
    c.wait_for(lambda: admitted(c, "q-research", "own") and admitted(c, "q-research", "borrow"), what="32 chips")
    c.apply([job("q-serving", "peak", hosts=4, priority="inference")])  # 16: nominal 8 + 8 borrowed
    c.wait_for(lambda: admitted(c, "q-serving", "peak"), what="the inference peak admitted")
    # Kueue takes from the borrowing ClusterQueue as a whole: one of research's two 16-chip jobs goes, the
    # other keeps research at its nominal 16 (which is never taken)
    reasons = [(evicted(c, "q-research", n) or {}).get("reason") for n in ("own", "borrow")]
    assert sorted(map(str, reasons)) == ["None", "Preempted"], reasons
    assert [admitted(c, "q-research", n) for n in ("own", "borrow")].count(True) == 1


def test_a_team_gets_its_nominal_back_from_another_teams_borrowing_training(fresh_queues: LocalCluster) -> None:
    """Clause (c) with equal priorities: no preemption (LowerPriority), but the freed chips go to the team
    within its nominal quota before any borrowing work (Kueue admits non-borrowing workloads first), even
    before a borrowing job that was queued earlier."""
    c = fresh_queues
    c.apply([job("q-research", "own", hosts=4), job("q-serving", "s-own", hosts=2)])
    c.wait_for(lambda: admitted(c, "q-research", "own") and admitted(c, "q-serving", "s-own"), what="24 chips")
    c.apply([job("q-research", "borrow", hosts=2)])  # nlp's idle 8
    c.wait_for(lambda: admitted(c, "q-research", "borrow"), what="research borrows nlp's idle chips")
    c.apply([job("q-research", "borrow-2", hosts=2)])  # queued first
    c.wait_for(lambda: workload_of(c, "q-research", "borrow-2") is not None, what="borrow-2's workload")
    time.sleep(2)
    c.apply([job("q-nlp", "back", hosts=2)])
    c.wait_for(lambda: workload_of(c, "q-nlp", "back") is not None, what="nlp's workload")
    time.sleep(3)
    assert not admitted(c, "q-nlp", "back") and evicted(c, "q-research", "borrow") is None
    c.kubectl("delete", "job", "borrow", "-n", "q-research", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-nlp", "back"), what="nlp's nominal chips back")
    time.sleep(2)
    assert not admitted(c, "q-research", "borrow-2")  # 32 of 32 in use: the earlier borrowing job still waits


def jobset(team: str, name: str, hosts: int) -> dict[str, Any]:
    template = job(team, name, hosts)["spec"]
    del template["suspend"]
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": team, "labels": {QUEUE_LABEL: "team", PRIORITY_LABEL: "training"}},
        "spec": {"suspend": True, "replicatedJobs": [{"name": "slice", "replicas": 1, "template": {"spec": template}}]},
    }


def test_a_multi_host_jobset_is_admitted_whole_or_not_at_all(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    c.apply(
        [job("q-nlp", "n-train", hosts=2), job("q-serving", "s-train", hosts=2), job("q-research", "r-train", hosts=2)]
    )
    used = [("q-nlp", "n-train"), ("q-serving", "s-train"), ("q-research", "r-train")]
    c.wait_for(lambda: all(admitted(c, *t) for t in used), what="24 of 32 chips in use")
    # a 16-chip slice (4 hosts) does not fit in the 8 chips left: nothing of it is admitted
    c.apply([jobset("q-research", "slice", hosts=4)])
    c.wait_for(lambda: workload_of(c, "q-research", "slice") is not None, what="the JobSet's workload")
    time.sleep(3)
    w = workload_of(c, "q-research", "slice")
    assert condition(w, "QuotaReserved") is None and not admitted(c, "q-research", "slice")
    assert c.get("jobset.jobset.x-k8s.io", "slice", "q-research")["spec"]["suspend"] is True
    # once 16 chips are free the whole slice is admitted at once: one podset of 4 hosts
    c.kubectl("delete", "job", "n-train", "-n", "q-nlp", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-research", "slice"), what="the JobSet admitted")
    [assignment] = workload_of(c, "q-research", "slice")["status"]["admission"]["podSetAssignments"]  # type: ignore[index]
    assert assignment["count"] == 4 and assignment["flavors"]["google.com/tpu"] == "v5e-4x4"
    assert c.get("jobset.jobset.x-k8s.io", "slice", "q-research")["spec"]["suspend"] is False
