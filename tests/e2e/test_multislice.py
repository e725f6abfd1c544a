"""Multi-host TPU JobSets from ``workload new`` with the REAL JobSet controller v0.12.0 (its webhooks
registered by URL: gke_accel/twin/jobset.py), kube-scheduler, kube-controller-manager (job, podgc,
garbage collector) and kwok, on staging's TPU nodes (gke_accel/twin/nodes.py: four 2x4 slices on
ct5lp-hightpu-4t, one GKE node pool each: v5e-slice, v5e-shared-s0..s2, two VMs per slice).

What the server stores decides every assertion (pod ``spec.nodeName`` -> the node's
``cloud.google.com/gke-nodepool`` label, JobSet status, events); lint's verdict on each JobSet is
recorded beside what the controller and scheduler did (printed at the end of the module).

1. one slice: both pods Running on one node pool;
2. two slices (multislice): two distinct pools, each holding both pods of one child Job;
3. all four slices busy: a further JobSet gets no pod bound (its leader Pending, its follower not even
   created), and runs whole on the freed pool when a slice frees;
4. node loss: a node of a running slice is deleted; podgc fails its pod with DisruptionTarget, the Job
   fails by its podFailurePolicy, the JobSet restarts without counting it against maxRestarts, and the
   new pods land in one node pool again;
5. without the annotation the same JobSet straddles two pools (the defect the annotation prevents).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import JOBSET
from gke_accel.twin.cluster import DEFAULT_CONTROLLERS, LocalCluster, find_binaries
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import install_crds, release_crds
from gke_accel.twin.nodes import pool_node
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.generate.jobset import EXCLUSIVE_KEY
from gke_accel.workloads.lint import lint_texts
from require import build_output, require_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "config"
NS = "ms-e2e"  # no quota or Kueue here: the placement is what is tested
POOL = "cloud.google.com/gke-nodepool"
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
RESULTS: list[str] = []  # lint verdict vs what the engines did, per JobSet


def _need(names: tuple[str, ...]) -> None:
    bins, reason = find_binaries(names)
    if bins is None:
        require_or_skip(reason)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    # podgc deletes the pods of a deleted node (after its 40 s quarantine) with a DisruptionTarget condition;
    # training pods run until deleted (or their node is)
    controllers = (*DEFAULT_CONTROLLERS, "podgc")
    try:
        with own_cluster(tmp_path_factory.mktemp("k8s-multislice"), controllers=controllers, complete_jobs=False) as c:
            yield c
    finally:
        print("\nlint verdict vs JobSet controller + scheduler:\n" + "\n".join(RESULTS))


@pytest.fixture(scope="module")
def jobset(cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JobSetController]:
    try:
        install_crds(cluster, release_crds(JOBSET))
        runner = JobSetController.start(cluster, tmp_path_factory.mktemp("jobset"))
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip(
            "JobSet controller not available (tools/kueue/build.sh jobset, Go module proxy)", output=build_output(exc)
        )
    with runner:
        yield runner


def _ready(c: LocalCluster, names: list[str]) -> bool:
    nodes = {n["metadata"]["name"]: n for n in c.get("nodes")["items"]}
    return all(
        any(
            x["type"] == "Ready" and x["status"] == "True"
            for x in nodes.get(n, {}).get("status", {}).get("conditions", [])
        )
        for n in names
    )


def add_nodes(c: LocalCluster, nodes: list[dict[str, Any]]) -> None:
    c.create_nodes(nodes)
    names = [n["metadata"]["name"] for n in nodes]
    c.wait_for(lambda: _ready(c, names), timeout=90, what="kwok to mark the nodes Ready")


@pytest.fixture(scope="module")
def staging(cluster: LocalCluster, jobset: JobSetController) -> EnvironmentPlan:
    [plan] = load_environments(CONFIG, ["staging"])
    add_nodes(cluster, [pool_node(p, i) for p in plan.pools if p.kind == "tpu" for i in range(p.node_bounds()[1])])
    cluster.apply([o for o in platform_manifests(plan) if o["kind"] == "PriorityClass"])
    cluster.kubectl("create", "namespace", NS)
    cluster.apply([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "workload", "namespace": NS}}])
    return plan


@pytest.fixture
def env(cluster: LocalCluster, staging: EnvironmentPlan) -> Iterator[EnvironmentPlan]:
    yield staging
    cluster.kubectl("delete", "jobsets", "--all", "-n", NS, "--wait=true", check=False)
    cluster.wait_for(lambda: not pods(cluster), timeout=90, what=f"the pods of {NS} to be gone")
    cluster.kubectl("uncordon", "-l", "type=kwok", check=False)  # every fake node (kubectl has no --all here)


def generated(plan: EnvironmentPlan, name: str, slices: int = 1) -> dict[str, Any]:
    req = WorkloadRequest(name, "nlp", "jobset", "v5e", "img", chips=8, slices=slices, checkpoints=False)
    [obj] = new_workload(plan, req)
    return obj


def submit(c: LocalCluster, plan: EnvironmentPlan, obj: dict[str, Any]) -> str:
    """Lint the JobSet against staging (its verdict is recorded), then create it in the test namespace."""
    report = lint_texts(plan, [(obj["metadata"]["name"], yaml.safe_dump(obj))])
    verdict = "ok" if report.ok else "FAIL " + "; ".join(f"[{f.rule}]" for v in report.verdicts for f in v.errors)
    placed = {**obj, "metadata": {**obj["metadata"], "namespace": NS}}
    c.create([placed])
    return verdict


def pods(c: LocalCluster, name: str | None = None) -> list[dict[str, Any]]:
    selector = [f"-l={JOBSET_NAME}={name}"] if name else []
    items: list[dict[str, Any]] = yaml.safe_load(c.kubectl("get", "pods", "-n", NS, *selector, "-o", "yaml").stdout)[
        "items"
    ]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def node_pools(c: LocalCluster) -> dict[str, str]:
    return {n["metadata"]["name"]: n["metadata"]["labels"].get(POOL, "") for n in c.get("nodes")["items"]}


def placement(c: LocalCluster, name: str) -> dict[str, list[str]] | None:
    """Child Job index -> node pools of its Running pods, once every pod of every child Job runs."""
    current = pods(c, name)
    if not current or any(p["status"].get("phase") != "Running" for p in current):
        return None
    where = node_pools(c)
    out: dict[str, list[str]] = {}
    for p in current:
        out.setdefault(p["metadata"]["labels"]["jobset.sigs.k8s.io/job-index"], []).append(where[p["spec"]["nodeName"]])
    return out


def running(c: LocalCluster, name: str, jobs: int, per_job: int = 2, timeout: float = 60) -> dict[str, list[str]]:
    def whole() -> dict[str, list[str]] | None:
        got = placement(c, name)
        return got if got and len(got) == jobs and all(len(v) == per_job for v in got.values()) else None

    try:
        return c.wait_for(whole, timeout=timeout, what=f"JobSet {name}: {jobs} x {per_job} pods Running")
    except TimeoutError as exc:
        raise TimeoutError(f"{exc}\n{diagnose(c, name)}") from None


def unschedulable(c: LocalCluster, name: str) -> list[dict[str, Any]]:
    """The JobSet's pods the scheduler has tried and refused (PodScheduled=False, reason Unschedulable,
    which kube-scheduler sets with its FailedScheduling event), once every pending pod has that answer;
    empty before. A negative placement check waits for this decision instead of sleeping."""
    waiting = [p for p in pods(c, name) if not p["spec"].get("nodeName")]
    refused = [
        p
        for p in waiting
        if any(
            (x["type"], x["status"], x.get("reason")) == ("PodScheduled", "False", "Unschedulable")
            for x in p.get("status", {}).get("conditions", [])
        )
    ]
    return refused if waiting and len(refused) == len(waiting) else []


def diagnose(c: LocalCluster, name: str) -> str:
    """What the server holds for the JobSet: its status, its Jobs' conditions, pods, recent events."""
    js = c.kubectl("get", "jobset", name, "-n", NS, "-o", "yaml", check=False).stdout
    jobs = c.kubectl("get", "jobs", "-n", NS, "-l", f"{JOBSET_NAME}={name}", "-o", "yaml", check=False).stdout
    pod_lines = [
        f"{p['metadata']['name']} {p['status'].get('phase')} node={p['spec'].get('nodeName')} "
        f"{[(x['type'], x['status'], x.get('message', '')) for x in p['status'].get('conditions', [])]}"
        for p in pods(c, name)
    ]
    events = c.kubectl("get", "events", "-n", NS, "--sort-by=.lastTimestamp", check=False).stdout
    return "\n".join([js[-1500:], jobs[-1500:], *pod_lines, events[-3000:]])


def record(name: str, verdict: str, outcome: str) -> None:
    RESULTS.append(f"  {name:<14} lint: {verdict:<32} engines: {outcome}")


def test_one_slice_runs_on_one_node_pool(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    obj = generated(env, "one")
    assert obj["metadata"]["annotations"][EXCLUSIVE_KEY] == POOL
    verdict = submit(cluster, env, obj)
    got = running(cluster, "one", jobs=1)
    [pools] = got.values()
    assert len(set(pools)) == 1, got
    record("one", verdict, f"both pods on {pools[0]}")
    assert verdict == "ok"


def test_two_slices_run_on_two_node_pools_one_each(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    verdict = submit(cluster, env, generated(env, "two", slices=2))
    got = running(cluster, "two", jobs=2)
    assert all(len(set(v)) == 1 for v in got.values()), got
    assert len({v[0] for v in got.values()}) == 2, got
    coordinator = pods(cluster, "two")[0]["metadata"]["labels"]["jobset.sigs.k8s.io/coordinator"]
    assert coordinator == "two-workers-0-0.two"  # MEGASCALE_COORDINATOR_ADDRESS reads this label
    record("two", verdict, "slices on " + " + ".join(sorted(v[0] for v in got.values())))
    assert verdict == "ok"


def test_a_jobset_waits_whole_while_all_slices_are_busy(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    for i in range(4):
        submit(cluster, env, generated(env, f"busy-{i}"))
    busy = {f"busy-{i}": running(cluster, f"busy-{i}", jobs=1) for i in range(4)}
    assert len({v["0"][0] for v in busy.values()}) == 4, busy
    verdict = submit(cluster, env, generated(env, "waiting"))
    cluster.wait_for(lambda: unschedulable(cluster, "waiting"), what="the scheduler refusing the leader pod")
    waiting = pods(cluster, "waiting")
    assert not [p for p in waiting if p["spec"].get("nodeName")], waiting  # no partial placement
    assert [p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] for p in waiting] == ["0"]
    scheduled = {c["type"]: c for c in waiting[0]["status"].get("conditions", [])}["PodScheduled"]
    assert (scheduled["status"], scheduled["reason"]) == ("False", "Unschedulable"), scheduled
    freed = busy["busy-2"]["0"][0]
    cluster.kubectl("delete", "jobset", "busy-2", "-n", NS, "--wait=true")
    got = running(cluster, "waiting", jobs=1, timeout=90)
    assert got == {"0": [freed, freed]}, got
    record("waiting", verdict, f"0 pods bound while 4 slices busy; then both on the freed {freed}")


def test_a_lost_node_restarts_the_jobset_onto_one_pool(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    verdict = submit(cluster, env, generated(env, "lossy"))
    running(cluster, "lossy", jobs=1)
    victim = next(
        p
        for p in pods(cluster, "lossy")
        if p["metadata"]["labels"].get("batch.kubernetes.io/job-completion-index") == "1"
    )
    node = victim["spec"]["nodeName"]
    lost_pool = node_pools(cluster)[node]
    # A multi-host slice is recovered whole ("Failure recovery of TPU instances", cloud.google.com/tpu/docs/
    # failure-recovery: all instances of a multi-host slice are recovered or rescheduled together), so the
    # lost pool's surviving VM is out of service with it: cordoned, else the restarted leader may land on it
    # (the scheduler's free choice among the empty VMs) and its follower wait for the missing VM.
    for other, pool in node_pools(cluster).items():
        if pool == lost_pool and other != node:
            cluster.kubectl("cordon", other)
    cluster.kubectl("delete", "node", node)
    try:
        cluster.wait_for(
            lambda: cluster.get("jobset", "lossy", NS).get("status", {}).get("restarts", 0) >= 1,
            timeout=150,
            what="podgc to fail the lost node's pod and the JobSet to restart",
        )
        status = cluster.get("jobset", "lossy", NS)["status"]
        assert status["restarts"] == 1 and status.get("restartsCountTowardsMax", 0) == 0, status
        events = cluster.get("events", namespace=NS)["items"]
        reasons = {e["reason"] for e in events if e["involvedObject"].get("name") == "lossy"}
        assert "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction" in reasons, reasons
        got = running(cluster, "lossy", jobs=1, timeout=90)
        [pools] = got.values()
        assert len(set(pools)) == 1 and pools[0] != lost_pool, got  # the lost pool has one VM left
        record("lossy", verdict, f"node {node} deleted: restarted (free), both pods on {pools[0]}")
    finally:
        plan_pool = next(p for p in env.pools if p.name == lost_pool)
        add_nodes(cluster, [pool_node(plan_pool, int(node.rsplit("-", 1)[1]))])


def test_without_the_annotation_a_slice_straddles_two_pools(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    """Leave one free VM in each of two pools: the unannotated JobSet takes both (a split slice), which
    the annotated one refuses (its follower stays Pending on the leader's pool)."""
    free = {"v5e-slice-0", "v5e-shared-s0-0"}
    for name in node_pools(cluster):
        if name not in free:
            cluster.kubectl("cordon", name)
    split = generated(env, "split")
    del split["metadata"]["annotations"][EXCLUSIVE_KEY]
    verdict = submit(cluster, env, split)
    got = running(cluster, "split", jobs=1)
    assert sorted(got["0"]) == ["v5e-shared-s0", "v5e-slice"], got
    record("split", verdict, f"one slice over {' + '.join(sorted(got['0']))} (split)")
    assert verdict.startswith("FAIL") and "[slice-placement]" in verdict
    cluster.kubectl("delete", "jobset", "split", "-n", NS, "--wait=true")
    cluster.wait_for(lambda: not pods(cluster, "split"), timeout=60, what="the split JobSet's pods to go")
    verdict = submit(cluster, env, generated(env, "kept"))
    # the leader takes one free VM; its follower, pinned to the leader's pool, is refused by the scheduler
    cluster.wait_for(lambda: unschedulable(cluster, "kept"), what="the scheduler refusing the follower")
    kept = pods(cluster, "kept")
    bound = [p for p in kept if p["spec"].get("nodeName")]
    assert len(bound) <= 1, kept  # the leader may run; its follower never goes to another pool
    record("kept", verdict, f"{len(bound)} of 2 pods bound, no split")
    assert verdict == "ok"


def test_two_h100_nodes_run_on_the_compact_pool_with_torchrun_env(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    """prod's `workload new --kind jobset --accelerator h100 --gpus 8 --nodes 2` on prod's two
    a3-highgpu-8g nodes of the compact pool h100-train (added to this cluster)."""
    [prod] = load_environments(CONFIG, ["prod"])
    h100 = next(p for p in prod.pools if p.name == "h100-train")
    add_nodes(cluster, [pool_node(h100, i) for i in range(h100.node_bounds()[1])])
    req = WorkloadRequest("ddp", "llm-training", "jobset", "h100", "img", chips=8, nodes=2, checkpoints=False)
    [obj] = new_workload(prod, req)
    verdict = submit(cluster, prod, obj)
    got = running(cluster, "ddp", jobs=1)
    assert got == {"0": ["h100-train", "h100-train"]}, got
    stored = sorted(pods(cluster, "ddp"), key=lambda p: p["metadata"]["name"])
    assert {p["spec"]["nodeName"] for p in stored} == {"h100-train-0", "h100-train-1"}  # one pod per node
    assert (stored[0]["spec"]["hostname"], stored[0]["spec"]["subdomain"]) == ("ddp-workers-0-0", "ddp")
    service = cluster.get("service", "ddp", NS)  # the headless Service MASTER_ADDR resolves through
    assert service["spec"]["clusterIP"] == "None"
    env_vars = {e["name"]: e.get("value") for e in stored[0]["spec"]["containers"][0]["env"]}
    assert env_vars["MASTER_ADDR"] == "ddp-workers-0-0.ddp" and env_vars["WORLD_SIZE"] == "16"
    record("ddp", verdict, "2 pods x 8 H100 on h100-train-0/-1 (compact pool)")
    assert verdict == "ok"
