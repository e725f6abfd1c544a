"""Queues on a real API server with the pinned Kueue/JobSet CRDs, the real Kueue and JobSet controllers
with their webhooks registered (tests/e2e/webhooks.py), kube-scheduler and kwok.

Three teams share 32 v5e chips (eight single-host 2x2 slices, one 4-chip VM each; q-research 16, q-nlp 8,
q-serving 8, q-serving may preempt when borrowing) plus Spot L4 GPUs. Fake nodes are every node the pools
can have, with the labels, taints and allocatable of the node-pool plans the pools are rendered from
(``nodes.pool_node``). Every workload is what ``gke-accel workload new`` writes (``new_workload``, with
``--completions/--parallelism`` for several hosts and small ``--cpu/--memory``); nobody writes
``suspend: true``: Kueue's job webhook suspends a Job that carries the queue label, as on GKE. An admitted
workload's pods are bound to nodes of the admitted flavor and Running; one not admitted has no pods.
The namespaces get the platform's ServiceAccounts, ResourceQuotas and LimitRanges; the whole
environment (fences included) runs in test_environments_run.py.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kueue_defaults import stored_spec
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.model.queues.plan import QueuePlan
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import SUSPEND_PROBE, KueueController, install_crds, wait_webhook_effective
from gke_accel.twin.nodes import pool_node
from gke_accel.twin.webhooks import WebhookCA, register, unregister
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from helpers import to_yaml
from queue_scenarios import TEAMS, queue_scenario_config
from require import build_output, require_or_skip

FLAVOR = "v5e-2x2"
PODS_READY_SECONDS = 20
NEVER_ARRIVED = "e2e.gke-accel/never-arrived"  # a taint standing for nodes the autoscaler cannot create


def shared_environment() -> tuple[EnvironmentPlan, QueuePlan]:
    data = queue_scenario_config(
        {"name": "v5e", "generation": "v5e", "topology": "2x2", "zone": "us-central1-a", "max_slices": 8}
    )
    # Kueue's waitForPodsReady at 20 s instead of 1800 s, so the never-arriving-nodes scenario ends within a
    # minute; every other scenario's pods are Ready within seconds on kwok nodes
    data["queues"]["pods_ready_timeout_seconds"] = PODS_READY_SECONDS
    env = load_environment_text(to_yaml(data))
    plan = queue_plan_of(env)  # the ResourceQuotas of platform_manifests(env) are the Kueue ceilings
    assert plan is not None
    return env, plan


def fake_nodes(env: EnvironmentPlan) -> list[dict[str, Any]]:
    """Every accelerator node the pools can have, as GKE shows them (``nodes.pool_node``: node_shape)."""
    return [pool_node(pool, i) for pool in env.pools for i in range(pool.node_bounds()[1])]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[LocalCluster]:
    """A control plane of this module's own, with kube-scheduler and kwok: the scenarios count every
    Kueue workload and node, so objects that other modules leave on the session cluster must not reach them."""
    with own_cluster(tmp_path_factory.mktemp("k8s-queues"), complete_jobs=False) as c:
        yield c


@pytest.fixture(scope="module")
def crds(cluster: LocalCluster) -> list[Path]:
    try:
        return install_crds(cluster)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))


@pytest.fixture(scope="module")
def queues_applied(cluster: LocalCluster, crds: list[Path]) -> tuple[EnvironmentPlan, QueuePlan]:
    env, plan = shared_environment()
    platform = platform_manifests(env)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    # the teams' fences as shipped: the quotas (the Kueue ceilings) and the LimitRanges Kueue applies
    # when it builds a Workload (real-engines F1: their accelerator defaults decided the flavors)
    cluster.apply([m for m in platform if m["kind"] in ("ResourceQuota", "ServiceAccount", "LimitRange")])
    cluster.apply(queue_manifests(plan, env.spec.platform.priority_classes))
    cluster.create_nodes(fake_nodes(env))
    return env, plan


def changed_by_server(declared: Any, stored: Any, path: str = "spec") -> list[str]:
    """Paths where the stored object differs from what was declared, ignoring what the server only added
    (its defaults: e.g. a ClusterQueue's ``flavorFungibility``, ``queueingStrategy``, ``stopPolicy``);
    lists must match element by element; scalars compare as text (quantities keep their spelling)."""
    if isinstance(declared, dict):
        if not isinstance(stored, dict):
            return [path]
        return [p for k, v in declared.items() for p in changed_by_server(v, stored.get(k), f"{path}.{k}")]
    if isinstance(declared, list):
        if not isinstance(stored, list) or len(stored) != len(declared):
            return [path]
        return [
            p
            for i, (d, s) in enumerate(zip(declared, stored, strict=True))
            for p in changed_by_server(d, s, f"{path}[{i}]")
        ]
    return [] if str(declared) == str(stored) else [f"{path}: {declared!r} stored as {stored!r}"]


def test_the_stored_object_comparison_sees_a_changed_quota_and_ignores_added_defaults() -> None:
    declared = {"resourceGroups": [{"flavors": [{"name": "v5e", "resources": [{"nominalQuota": 16}]}]}]}
    stored = {"queueingStrategy": "BestEffortFIFO", **declared}
    assert changed_by_server(declared, stored) == []
    lowered = {"resourceGroups": [{"flavors": [{"name": "v5e", "resources": [{"nominalQuota": "8"}]}]}]}
    assert changed_by_server(declared, lowered) == [
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: 16 stored as '8'"
    ]


def test_every_generated_kueue_object_is_accepted_with_the_pinned_crds(
    cluster: LocalCluster, queues_applied: tuple[EnvironmentPlan, QueuePlan]
) -> None:
    env, plan = queues_applied
    for manifest in queue_manifests(plan, env.spec.platform.priority_classes):
        meta = manifest["metadata"]
        stored = cluster.get(f"{manifest['kind'].lower()}.kueue.x-k8s.io", meta["name"], meta.get("namespace"))
        assert stored["apiVersion"] == "kueue.x-k8s.io/v1beta2"
        if "spec" in manifest:  # ClusterQueues too: declared + the CRDs' defaults, field for field
            assert stored["spec"] == stored_spec(manifest), f"{manifest['kind']} {meta['name']}"
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
    state = tmp_path_factory.mktemp("kueue")
    ca = WebhookCA(state / "webhook-ca")
    try:
        jobset = JobSetController.start(cluster, state / "jobset", ca)
    except subprocess.CalledProcessError as exc:
        require_or_skip(
            "the JobSet controller could not be built (tools/kueue/build.sh jobset)", output=build_output(exc)
        )
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


def job(team: str, name: str, hosts: int, priority: str = "training") -> dict[str, Any]:
    """``gke-accel workload new --kind job --accelerator v5e --chips 4 --completions H --parallelism H
    --cpu 100m --memory 64Mi --no-checkpoints``: H pods of 4 chips, only the queue label, no suspend."""
    env, _ = shared_environment()
    request = WorkloadRequest(
        name=name, team=team, kind="job", accelerator="v5e", image="registry.k8s.io/pause:3.10", chips=4,
        priority=priority, completions=hosts, parallelism=hosts, cpu="100m", memory="64Mi", checkpoints=False,
    )  # fmt: skip
    [obj] = new_workload(env, request)
    assert "suspend" not in obj["spec"]
    return obj


def pods_of(cluster: LocalCluster, namespace: str, label: str, name: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = cluster.get("pods", namespace=namespace).get("items", [])
    return [p for p in items if p["metadata"].get("labels", {}).get(label) == name]


def running_on_flavor(cluster: LocalCluster, namespace: str, name: str, count: int, label: str) -> bool:
    """``count`` pods of the workload are Running on nodes carrying every node label of the flavor (the
    ResourceFlavor as the server stores it)."""
    flavor_labels = cluster.get("resourceflavor.kueue.x-k8s.io", FLAVOR)["spec"]["nodeLabels"]
    pods = [p for p in pods_of(cluster, namespace, label, name) if "deletionTimestamp" not in p["metadata"]]
    if len(pods) != count or not all(p["status"].get("phase") == "Running" for p in pods):
        return False
    for p in pods:
        node = cluster.get("node", p["spec"]["nodeName"])
        if any(node["metadata"]["labels"].get(k) != v for k, v in flavor_labels.items()):
            raise AssertionError(f"pod {p['metadata']['name']} runs on {node['metadata']['name']}, not a {FLAVOR} node")
    return True


def job_running(cluster: LocalCluster, namespace: str, name: str, count: int) -> bool:
    return running_on_flavor(cluster, namespace, name, count, "batch.kubernetes.io/job-name")


def no_pods(cluster: LocalCluster, namespace: str, name: str, label: str = "batch.kubernetes.io/job-name") -> bool:
    return not pods_of(cluster, namespace, label, name)


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


def pending(cluster: LocalCluster, namespace: str, name: str) -> str | None:
    """Why Kueue's scheduler left the workload out, once it has tried it: its QuotaReserved=False
    condition with reason Pending (pkg/scheduler/scheduler.go requeueAndUpdate, which also records a
    Warning event "Pending"). None before the scheduler has looked at it. A negative check waits for
    this decision instead of sleeping: a fixed sleep passes for the wrong reason on a slow machine."""
    for c in (workload_of(cluster, namespace, name) or {}).get("status", {}).get("conditions", []):
        if (c["type"], c["status"], c.get("reason")) == ("QuotaReserved", "False", "Pending"):
            return str(c.get("message", "")) or "(no message)"
    return None


def pending_event_since(cluster: LocalCluster, namespace: str, name: str, since: str) -> bool:
    """Kueue's scheduler has tried the workload again at or after ``since`` (an RFC 3339 server time)
    and left it out: its Warning event "Pending" was last recorded then."""
    w = workload_of(cluster, namespace, name)
    if w is None:
        return False
    events = cluster.get("events", namespace=namespace).get("items", [])

    def last_seen(e: dict[str, Any]) -> str:
        """When the event last happened, to the second: core events carry ``lastTimestamp``; events
        recorded through events.k8s.io (a series) carry ``eventTime`` and ``series.lastObservedTime``
        with microseconds, which a plain string comparison with a whole-second time gets wrong."""
        times = [e.get("lastTimestamp"), e.get("eventTime"), (e.get("series") or {}).get("lastObservedTime")]
        return max((str(t)[:19] for t in times if t), default="")

    return any(
        e["involvedObject"].get("kind") == "Workload"
        and e["involvedObject"].get("name") == w["metadata"]["name"]
        and e.get("reason") == "Pending"
        and last_seen(e) >= since[:19]
        for e in events
    )


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


def submit(c: LocalCluster, obj: dict[str, Any]) -> dict[str, Any]:
    """``kubectl create`` the object; returns it as the server stored it (after every admission webhook)."""
    stored: dict[str, Any] = json.loads(c.kubectl("create", "-o", "json", "-f", "-", stdin=json.dumps(obj)).stdout)
    return stored


def test_within_nominal_is_suspended_by_the_webhook_admitted_and_runs_on_the_flavor(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    start = time.monotonic()
    created = submit(c, job("q-research", "within", hosts=4))
    # what workload new writes has no suspend: Kueue's job webhook set it when the Job was created
    assert created["spec"]["suspend"] is True
    c.wait_for(lambda: admitted(c, "q-research", "within"), what="a 16-chip job within research's nominal admitted")
    w = workload_of(c, "q-research", "within")
    assert w is not None
    [assignment] = w["status"]["admission"]["podSetAssignments"]
    assert assignment["flavors"]["google.com/tpu"] == FLAVOR and assignment["count"] == 4
    # F1: with the team LimitRange applied, the TPU job gets no GPU flavor (the old "0" defaults gave it l4)
    assert set(assignment["flavors"]) == {"google.com/tpu", "cpu", "memory"}, assignment["flavors"]
    stored = c.get("job", "within", "q-research")
    assert stored["spec"]["suspend"] is False
    selector = stored["spec"]["template"]["spec"]["nodeSelector"]
    assert selector["cloud.google.com/gke-tpu-topology"] == "2x2"
    assert "cloud.google.com/gke-accelerator" not in selector  # no GPU flavor's node label injected
    # the ResourceQuota (set to the Kueue ceiling) lets every pod in; the scheduler binds them to v5e nodes
    c.wait_for(lambda: job_running(c, "q-research", "within", 4), what="4 pods Running on v5e-2x2 nodes")
    assert time.monotonic() - start < 60


def test_over_nominal_waits_then_borrows_idle_chips_then_the_lender_reclaims(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    c.apply([job("q-research", "own", hosts=4), job("q-nlp", "nlp-own", hosts=2)])
    c.wait_for(lambda: admitted(c, "q-research", "own") and admitted(c, "q-nlp", "nlp-own"), what="nominal jobs")
    c.wait_for(lambda: job_running(c, "q-research", "own", 4) and job_running(c, "q-nlp", "nlp-own", 2),
               what="the nominal jobs' pods Running on the flavor")  # fmt: skip
    # research asks for 16 more: only serving's 8 are idle, so it waits, with no pod
    c.apply([job("q-research", "borrow", hosts=4, priority="batch")])
    c.wait_for(lambda: pending(c, "q-research", "borrow"), what="Kueue's scheduler leaving the borrowing job out")
    assert not admitted(c, "q-research", "borrow")
    w = workload_of(c, "q-research", "borrow")
    assert w is not None and condition(w, "QuotaReserved") is None
    assert no_pods(c, "q-research", "borrow")
    # nlp finishes: 16 idle chips (nlp's 8 + serving's 8), research borrows them
    c.kubectl("delete", "job", "nlp-own", "-n", "q-nlp", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-research", "borrow"), what="the over-nominal job borrows idle chips")
    # the ResourceQuota (the Kueue ceiling, 32 chips) lets the borrowing job's pods in: 8 pods x 4 chips
    c.wait_for(lambda: job_running(c, "q-research", "borrow", 4), what="the borrowing job's 4 pods Running")
    # nlp wants its share back: its training reclaims by preempting research's borrowing *batch* job
    # (reclaimWithinCohort: LowerPriority; equal-priority borrowers: the next test)
    c.apply([job("q-nlp", "nlp-back", hosts=2)])
    c.wait_for(lambda: admitted(c, "q-nlp", "nlp-back"), what="the lending team's new job admitted")
    evicted = condition(workload_of(c, "q-research", "borrow"), "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted"
    assert admitted(c, "q-research", "own")  # research's nominal job is untouched
    c.wait_for(lambda: job_running(c, "q-nlp", "nlp-back", 2), timeout=90, what="the reclaiming job's pods Running")
    c.wait_for(lambda: no_pods(c, "q-research", "borrow"), what="the preempted job's pods gone")


def test_inference_preempts_training_not_the_reverse(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    c.apply(
        [job("q-research", "r-train", hosts=4), job("q-nlp", "n-train", hosts=2), job("q-serving", "train", hosts=2)]
    )
    full = [("q-research", "r-train"), ("q-nlp", "n-train"), ("q-serving", "train")]
    c.wait_for(lambda: all(admitted(c, *t) for t in full), what="the cohort full (32 of 32 chips)")
    # a training job cannot push anyone out
    c.apply([job("q-serving", "train-2", hosts=2)])
    c.wait_for(lambda: pending(c, "q-serving", "train-2"), what="Kueue's scheduler leaving the training job out")
    assert not admitted(c, "q-serving", "train-2")
    assert no_pods(c, "q-serving", "train-2")
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
    c.wait_for(lambda: job_running(c, "q-serving", "serve", 2), timeout=90, what="the inference job's pods Running")


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
    c.wait_for(lambda: pending(c, "q-nlp", "reclaim"), what="Kueue's scheduler leaving nlp's training out")
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
    c.wait_for(lambda: pending(c, "q-research", "borrow-2"), what="borrow-2 queued and left out (32 of 32 in use)")
    c.apply([job("q-nlp", "back", hosts=2)])
    c.wait_for(lambda: pending(c, "q-nlp", "back"), what="Kueue's scheduler leaving nlp's job out (no preemption)")
    assert not admitted(c, "q-nlp", "back") and evicted(c, "q-research", "borrow") is None
    c.kubectl("delete", "job", "borrow", "-n", "q-research", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-nlp", "back"), what="nlp's nominal chips back")
    back = condition(workload_of(c, "q-nlp", "back"), "Admitted")
    assert back is not None
    # the freed chips requeued borrow-2 too: Kueue tried it after nlp's admission and left it out
    c.wait_for(lambda: pending_event_since(c, "q-research", "borrow-2", back["lastTransitionTime"]),
               what="Kueue's scheduler trying borrow-2 again after nlp's admission")  # fmt: skip
    assert not admitted(c, "q-research", "borrow-2")  # 32 of 32 in use: the earlier borrowing job still waits


def jobset(team: str, name: str, slices: int) -> dict[str, Any]:
    """``gke-accel workload new --kind jobset --accelerator v5e --chips 4 ...`` with
    ``replicatedJobs[0].replicas`` edited to ``slices``, as a user asking for several slices does."""
    env, _ = shared_environment()
    request = WorkloadRequest(
        name=name, team=team, kind="jobset", accelerator="v5e", image="registry.k8s.io/pause:3.10", chips=4,
        cpu="100m", memory="64Mi", checkpoints=False,
    )  # fmt: skip
    [obj] = new_workload(env, request)
    assert "suspend" not in obj["spec"] and len(obj["spec"]["replicatedJobs"]) == 1
    obj["spec"]["replicatedJobs"][0]["replicas"] = slices
    return obj


def test_a_multi_host_jobset_is_admitted_whole_or_not_at_all(fresh_queues: LocalCluster) -> None:
    c = fresh_queues
    c.apply(
        [job("q-nlp", "n-train", hosts=2), job("q-serving", "s-train", hosts=2), job("q-research", "r-train", hosts=2)]
    )
    used = [("q-nlp", "n-train"), ("q-serving", "s-train"), ("q-research", "r-train")]
    c.wait_for(lambda: all(admitted(c, *t) for t in used), what="24 of 32 chips in use")
    # 16 chips (4 slices) do not fit in the 8 chips left: nothing of it is admitted, and no pod exists
    created = submit(c, jobset("q-research", "slice", slices=4))
    assert created["spec"]["suspend"] is True  # Kueue's JobSet webhook
    c.wait_for(lambda: pending(c, "q-research", "slice"), what="Kueue's scheduler leaving the JobSet out")
    w = workload_of(c, "q-research", "slice")
    assert condition(w, "QuotaReserved") is None and not admitted(c, "q-research", "slice")
    assert c.get("jobset.jobset.x-k8s.io", "slice", "q-research")["spec"]["suspend"] is True
    assert no_pods(c, "q-research", "slice", label="jobset.sigs.k8s.io/jobset-name")
    # once 16 chips are free the whole JobSet is admitted at once: one podset of 4 pods
    c.kubectl("delete", "job", "n-train", "-n", "q-nlp", "--cascade=foreground")
    c.wait_for(lambda: admitted(c, "q-research", "slice"), what="the JobSet admitted")
    [assignment] = workload_of(c, "q-research", "slice")["status"]["admission"]["podSetAssignments"]  # type: ignore[index]
    assert assignment["count"] == 4 and assignment["flavors"]["google.com/tpu"] == FLAVOR
    assert c.get("jobset.jobset.x-k8s.io", "slice", "q-research")["spec"]["suspend"] is False
    c.wait_for(
        lambda: running_on_flavor(c, "q-research", "slice", 4, "jobset.sigs.k8s.io/jobset-name"),
        timeout=90,
        what="the JobSet's 4 pods Running on v5e-2x2 nodes",
    )


def test_without_kueues_webhook_registration_a_queued_job_is_not_suspended(
    fresh_queues: LocalCluster, kueue: KueueController
) -> None:
    """The registration is what suspends: with Kueue's MutatingWebhookConfiguration deleted (Kueue still
    running), the same generated Job is stored unsuspended and its pods are created before Kueue can
    intervene, which is why every test above asserts ``suspend`` on the object as created."""
    c = fresh_queues
    [mutating] = [w for w in kueue.webhooks if w["kind"] == "MutatingWebhookConfiguration"]
    unregister(c, [mutating])
    try:
        wait_webhook_effective(c, SUSPEND_PROBE, lambda j: not j["spec"].get("suspend"), "the webhook to be gone")
        created = submit(c, job("q-nlp", "unhooked", hosts=1))
        assert created["spec"].get("suspend") is False
        c.wait_for(lambda: pods_of(c, "q-nlp", "batch.kubernetes.io/job-name", "unhooked"),
                   what="the Job controller to create a pod of the unsuspended Job")  # fmt: skip
    finally:
        register(c, [mutating])
        wait_webhook_effective(c, SUSPEND_PROBE, lambda j: j["spec"].get("suspend") is True, "the webhook back")


def test_nodes_that_never_arrive_release_the_quota_after_the_pods_ready_timeout(fresh_queues: LocalCluster) -> None:
    """Code review R6: a stockout. research borrows the whole flavor (8 hosts, 32 chips) but only 2 of the
    8 v5e nodes ever come up (the other 6 tainted: the autoscaler cannot create them). Its workload is
    admitted, 6 pods stay Pending; after waitForPodsReady's timeout Kueue evicts it (PodsReadyTimeout),
    requeues it with backoff and frees its quota, so nlp's job of 2 hosts, waiting behind it, is admitted
    and runs on the 2 nodes there are."""
    c = fresh_queues
    nodes = sorted(n["metadata"]["name"] for n in c.get("nodes")["items"] if n["metadata"]["name"].startswith("v5e-"))
    assert len(nodes) == 8
    missing = nodes[2:]
    c.kubectl("taint", "nodes", *missing, f"{NEVER_ARRIVED}=true:NoSchedule")
    try:
        c.apply([job("q-research", "stockout", hosts=8)])
        c.wait_for(lambda: admitted(c, "q-research", "stockout"), what="the 32-chip job admitted on quota")
        admitted_at = time.monotonic()
        c.apply([job("q-nlp", "behind", hosts=2)])
        pending = c.wait_for(lambda: workload_of(c, "q-nlp", "behind"), what="nlp's workload created")
        assert condition(pending, "QuotaReserved") is None  # the flavor's 32 chips are all reserved
        evicted = c.wait_for(
            lambda: condition(workload_of(c, "q-research", "stockout"), "Evicted"),
            timeout=PODS_READY_SECONDS + 60,
            what="Kueue to evict the workload whose pods never became ready",
        )
        assert evicted["reason"] == "PodsReadyTimeout", evicted
        assert time.monotonic() - admitted_at >= PODS_READY_SECONDS - 2
        c.wait_for(lambda: admitted(c, "q-nlp", "behind"), timeout=60, what="nlp's job admitted on the freed quota")
        c.wait_for(lambda: job_running(c, "q-nlp", "behind", 2), timeout=60, what="nlp's 2 pods Running")
        w = workload_of(c, "q-research", "stockout")
        assert w is not None and not admitted(c, "q-research", "stockout")
        assert w["status"].get("requeueState", {}).get("count", 0) >= 1, w["status"]  # requeued with backoff
    finally:
        c.kubectl("taint", "nodes", *missing, f"{NEVER_ARRIVED}-", check=False)
