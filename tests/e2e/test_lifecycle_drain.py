"""Upgrades as GKE performs them, against the real API server, controllers and JobSet v0.12.0
(docs/lifecycle.md): a node upgrade cordons the node and evicts its pods through the eviction API
("Configure node upgrade strategies": surge upgrades drain nodes honouring PodDisruptionBudgets).

1. A training JobSet from ``workload new`` on a multi-host v5e 2x4 slice (staging's pools, two VMs per
   slice): the slice is upgraded whole (the training default: max_surge 0, max_unavailable 2), so both
   VMs are cordoned and one pod is evicted. The eviction API marks it DisruptionTarget, its Job fails by
   podFailurePolicy, and the JobSet restarts whole (not counted against maxRestarts) on one other pool,
   every pod with the command it was given (``--resume latest``: the generated command is the user's).
2. An inference Deployment from ``workload new --kind deployment`` with its PodDisruptionBudget: with
   no spare node, the eviction API lets one replica go and refuses the second eviction (HTTP 429,
   "disruption budget"), so one replica keeps serving.
3. GKE's rolling upgrade of the inference pools (surge 1, unavailable 0), three replicas on staging's five
   L4 nodes (``pool_node``; its L4 ladder's pools l4-reserved 2, l4-serve 1, l4-spot 2: the Deployment
   selects the ComputeClass, so a replica may land on any of them), pool after pool: per old node a surge
   node of its pool is added, the real ``kubectl drain`` run
   (eviction API, retried on 429), the old node deleted. A watch on the pods (drain_watch.py) never sees
   fewer healthy replicas than the stored PDB promises; at the end all run on new nodes, all available.
4. The rejected case: no spare node, two replicas' nodes drained. With the budget the second drain is
   refused (retried, then it times out) and the floor holds; with the PDB deleted the same drain goes
   through and the same watch sees one replica fewer than the floor.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from drain_watch import Kubelet, ServingWatch, assert_kept, budget_floor, drain, gone, kubelet_step, serving
from test_multislice import _need, add_nodes, node_pools, pods, running

from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import JOBSET
from gke_accel.twin.client import kubectl_binary
from gke_accel.twin.cluster import CONTROL_PLANE, DEFAULT_CONTROLLERS, LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import install_crds, release_crds
from gke_accel.twin.nodes import pool_node
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from require import build_output, require_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "config"
NS = "ms-e2e"  # the namespace test_multislice's helpers read
RESUME = ("python", "train.py", "--resume", "latest")
APP = "app.kubernetes.io/name"  # the generated Deployment's selector (and its PodDisruptionBudget's)
# staging's L4 ladder (config/staging.yaml capacity.l4): workload new's Deployment selects the class l4,
# whose pools these are; its replicas land on any of them
L4_POOLS = ("l4-reserved", "l4-serve", "l4-spot")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    _need((*CONTROL_PLANE, "kube-scheduler", "kwok"))
    # deployment + replicaset run the Deployment; disruption keeps the PDB's status (disruptionsAllowed)
    controllers = (*DEFAULT_CONTROLLERS, "podgc", "deployment", "replicaset", "disruption")
    c = LocalCluster.start(tmp_path_factory.mktemp("k8s-lifecycle"), controllers=controllers)
    try:
        c.start_scheduler()
        start_kwok_as_nodes_only(c)
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def staging(cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvironmentPlan]:
    try:
        install_crds(cluster, release_crds(JOBSET))
        runner = JobSetController.start(cluster, tmp_path_factory.mktemp("jobset"))
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip(
            "JobSet controller not available (tools/kueue/build.sh jobset, Go module proxy)", output=build_output(exc)
        )
    with runner:
        [plan] = load_environments(CONFIG, ["staging"])
        nodes = [pool_node(p, i) for p in plan.pools for i in range(p.node_bounds()[1])]
        add_nodes(cluster, nodes)
        cluster.apply([o for o in platform_manifests(plan) if o["kind"] == "PriorityClass"])
        cluster.kubectl("create", "namespace", NS)
        sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "workload", "namespace": NS}}
        cluster.apply([sa])
        yield plan


def start_kwok_as_nodes_only(c: LocalCluster) -> None:
    """kwok runs the nodes and starts pods (Ready), but neither completes nor deletes them: what the
    kubelet does when a pod is evicted is played by ``drain_watch.kubelet_step``, in the order the kubelet does it."""
    skip = {"pod-complete", "pod-delete"}
    stages = [s for s in sorted((c.bins.parent / "stages").glob("*.yaml")) if s.stem not in skip]
    c._spawn("kwok", [
        f"--kubeconfig={c.kubeconfig}", "--manage-all-nodes=false",
        "--manage-nodes-with-label-selector=type=kwok", "--node-ip=127.0.0.1", "--server-address=",
        "--node-port=0", *[f"--config={s}" for s in stages],
    ])  # fmt: skip


def _in_ns(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "namespace": NS}}


def _evict(c: LocalCluster, pod: str) -> subprocess.CompletedProcess[str]:
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": pod, "namespace": NS}}
    return subprocess.run(
        [kubectl_binary(), f"--kubeconfig={c.kubeconfig}", "create", "--raw",
         f"/api/v1/namespaces/{NS}/pods/{pod}/eviction", "-f", "-"],
        input=json.dumps(body), capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_draining_a_whole_slice_restarts_the_jobset_whole_with_resume_latest(
    cluster: LocalCluster, staging: EnvironmentPlan
) -> None:
    req = WorkloadRequest("upgr", "nlp", "jobset", "v5e", "img", command=RESUME, chips=8, checkpoints=False)
    [obj] = new_workload(staging, req)
    assert obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["command"] == list(
        RESUME
    )
    cluster.create([_in_ns(obj)])
    [before] = running(cluster, "upgr", jobs=1).values()
    pool = before[0]
    [slice_plan] = [p for p in staging.pools if p.name == pool]
    assert slice_plan.lifecycle is None or slice_plan.lifecycle.gang_nodes == 2  # staging: two VMs per slice
    slice_nodes = [n for n, p in node_pools(cluster).items() if p == pool]
    assert len(slice_nodes) == 2
    try:
        for node in slice_nodes:  # the whole slice goes at once (max_unavailable 2)
            cluster.kubectl("cordon", node)
        victim = next(p["metadata"]["name"] for p in pods(cluster, "upgr") if p["spec"]["nodeName"] == slice_nodes[0])
        result = _evict(cluster, victim)
        assert result.returncode == 0, result.stderr

        def restarted() -> bool:
            kubelet_step(cluster, NS)
            return bool(cluster.get("jobset", "upgr", NS).get("status", {}).get("restarts", 0) >= 1)

        cluster.wait_for(
            restarted,
            timeout=120,
            what="the evicted pod's Job to fail by podFailurePolicy and the JobSet to restart",
        )
        status = cluster.get("jobset", "upgr", NS)["status"]
        assert status["restarts"] == 1 and status.get("restartsCountTowardsMax", 0) == 0, status

        def whole_again() -> bool:
            kubelet_step(cluster, NS)  # the old pods, deleted by the restart, go
            return len(pods(cluster, "upgr")) == 2

        cluster.wait_for(whole_again, timeout=90, what="the old pods to be gone and two new ones created")
        [after] = running(cluster, "upgr", jobs=1, timeout=90).values()
        assert len(set(after)) == 1 and after[0] != pool, after  # whole, on one other slice
        new_pods = pods(cluster, "upgr")
        assert len(new_pods) == 2
        for p in new_pods:
            [container] = p["spec"]["containers"]
            assert container["command"] == list(RESUME)
            assert p["metadata"]["labels"].get("jobset.sigs.k8s.io/restart-attempt") == "1"
    finally:
        cluster.kubectl("delete", "jobsets", "--all", "-n", NS, "--wait=false", check=False)

        def all_gone() -> bool:
            kubelet_step(cluster, NS)
            return not pods(cluster)

        cluster.wait_for(all_gone, timeout=90, what=f"the pods of {NS} gone")
        cluster.kubectl("uncordon", "-l", "type=kwok", check=False)  # every fake node (create_nodes)


def _deployment_status(c: LocalCluster, name: str) -> dict[str, Any]:
    status: dict[str, Any] = c.get("deployment", name, NS).get("status", {})
    return status


def test_the_eviction_api_refuses_to_evict_an_inference_deployment_beyond_its_budget(
    cluster: LocalCluster, staging: EnvironmentPlan
) -> None:
    req = WorkloadRequest("srv", "serving", "deployment", "l4", "srv:1", chips=1, replicas=2, checkpoints=False)
    objects = new_workload(staging, req)
    assert [o["kind"] for o in objects] == ["Deployment", "PodDisruptionBudget"]
    cluster.create([_in_ns(o) for o in objects])

    def ready() -> int:
        kubelet_step(cluster, NS)
        return int(_deployment_status(cluster, "srv").get("readyReplicas", 0))

    cluster.wait_for(lambda: ready() == 2, timeout=90, what="both replicas Ready")
    cluster.wait_for(
        lambda: cluster.get("pdb", "srv", NS).get("status", {}).get("disruptionsAllowed") == 1,
        timeout=60,
        what="the disruption controller to allow one disruption",
    )
    try:
        # no spare node: an evicted replica's replacement cannot start elsewhere, so while it is down
        # the API server refuses the second eviction (429: it would violate the PodDisruptionBudget)
        serving_nodes = {p["spec"]["nodeName"] for p in serving(cluster, NS, f"{APP}=srv")}
        spare = [n for n, pool in node_pools(cluster).items() if pool in L4_POOLS and n not in serving_nodes]
        for node in spare:
            cluster.kubectl("cordon", node)
        first, second = (p["metadata"]["name"] for p in serving(cluster, NS, f"{APP}=srv"))
        assert _evict(cluster, first).returncode == 0
        refused = _evict(cluster, second)
        assert refused.returncode != 0 and "disruption budget" in refused.stderr, refused.stderr
    finally:
        cluster.kubectl("delete", "deployment,pdb", "srv", "-n", NS, "--wait=false", check=False)
        cluster.wait_for(lambda: gone(cluster, NS, f"{APP}=srv"), timeout=60, what="srv pods gone")
        cluster.kubectl("uncordon", "-l", "type=kwok", check=False)  # every fake node (create_nodes)


def _serve(c: LocalCluster, plan: EnvironmentPlan, name: str, replicas: int) -> int:
    """Create ``workload new --kind deployment``'s Deployment and PodDisruptionBudget on the L4 pool, wait
    until every replica is Ready and the disruption controller has counted them; the floor the budget
    promises, from the PDB as the server stores it and the Deployment's scale."""
    req = WorkloadRequest(name, "serving", "deployment", "l4", "srv:1", chips=1, replicas=replicas, checkpoints=False)
    objects = new_workload(plan, req)
    assert [o["kind"] for o in objects] == ["Deployment", "PodDisruptionBudget"]
    c.create([_in_ns(o) for o in objects])
    try:
        c.wait_for(lambda: _deployment_status(c, name).get("readyReplicas") == replicas, timeout=90, what="Ready")
    except TimeoutError as exc:
        held = c.kubectl("get", "deploy,rs,pods", "-n", NS, "-o", "wide", check=False).stdout
        events = c.kubectl("get", "events", "-n", NS, "--field-selector=type=Warning", check=False).stdout
        raise TimeoutError(f"{exc}\n{held}\n{events[-2000:]}") from None
    pdb = c.wait_for(
        lambda: (got := c.get("pdb", name, NS)).get("status", {}).get("currentHealthy") == replicas and got,
        timeout=60,
        what="the disruption controller to count every replica",
    )
    floor = budget_floor(pdb["spec"], c.get("deployment", name, NS)["spec"]["replicas"])
    assert pdb["status"]["desiredHealthy"] == floor, pdb["status"]  # the disruption controller agrees
    return floor


def test_a_rolling_surge_upgrade_drains_every_node_and_the_deployment_keeps_its_budget(
    cluster: LocalCluster, staging: EnvironmentPlan
) -> None:
    replicas = 3
    floor = _serve(cluster, staging, "roll", replicas)
    pools = {p.name: p for p in staging.pools if p.name in L4_POOLS}
    of_node = node_pools(cluster)
    old = sorted(n for n, p in of_node.items() if p in L4_POOLS)
    assert len(old) == sum(p.node_bounds()[1] for p in pools.values()) == 5 > replicas  # at their max: 2 spare
    surge = {name: p.node_bounds()[1] for name, p in pools.items()}  # the next node index of each pool
    drain_logs: list[str] = []
    try:
        with Kubelet(cluster, NS), ServingWatch(cluster, NS, f"{APP}=roll") as watch:
            for node in old:  # surge 1 / unavailable 0: a new node of its pool first, then the old one goes
                add_nodes(cluster, [pool_node(pools[of_node[node]], surge[of_node[node]])])
                surge[of_node[node]] += 1
                drained = drain(cluster, node)
                assert drained.returncode == 0, drained.stderr
                drain_logs.append(drained.stderr)
                cluster.kubectl("delete", "node", node)
            cluster.wait_for(
                lambda: (
                    watch.healthy() == replicas
                    and _deployment_status(cluster, "roll").get("availableReplicas") == replicas
                ),
                timeout=60,
                what="every replica Ready again",
            )
        retried = sum("will retry" in d for d in drain_logs)
        print(f"\nrolling upgrade of {old} ({retried} drains retried a refused eviction): {watch.report()}")
        assert_kept(watch, floor)
        # every first replica was evicted (a replacement may land on an old node and be evicted again), each
        # down until its replacement ran: the drains did take the Deployment down to its floor
        assert len(watch.listed) == replicas and watch.listed <= watch.evicted, watch.report()
        assert watch.lowest == floor, watch.report()
        placed = [p["spec"]["nodeName"] for p in serving(cluster, NS, f"{APP}=roll")]
        assert len(placed) == replicas and not set(placed) & set(old), placed
        status = _deployment_status(cluster, "roll")
        assert status["readyReplicas"] == status["updatedReplicas"] == replicas, status
        assert not status.get("unavailableReplicas"), status
    finally:
        cluster.kubectl("delete", "deployment,pdb", "roll", "-n", NS, "--wait=false", check=False)
        cluster.wait_for(lambda: gone(cluster, NS, f"{APP}=roll"), timeout=60, what="roll pods gone")


def test_without_the_budget_the_same_drains_take_the_deployment_below_its_floor(
    cluster: LocalCluster, staging: EnvironmentPlan
) -> None:
    """The rejected case: no spare node (a replacement cannot start), two replicas' nodes drained. With
    the budget the second drain is refused (429, retried) until it times out; the PDB deleted, the same
    drain goes through and the watch sees fewer healthy replicas than the floor."""
    floor = _serve(cluster, staging, "bare", replicas=3)
    serving_nodes = sorted({p["spec"]["nodeName"] for p in serving(cluster, NS, f"{APP}=bare")})
    try:
        for node in [n for n, p in node_pools(cluster).items() if p in L4_POOLS and n not in serving_nodes]:
            cluster.kubectl("cordon", node)
        first, second = serving_nodes[:2]
        with Kubelet(cluster, NS), ServingWatch(cluster, NS, f"{APP}=bare") as watch:
            assert drain(cluster, first).returncode == 0
            refused = drain(cluster, second, timeout="7s")
            assert refused.returncode != 0, refused.stdout
            assert "will retry after 5s" in refused.stderr and "disruption budget" in refused.stderr, refused.stderr
            assert_kept(watch, floor)
            cluster.kubectl("delete", "pdb", "bare", "-n", NS)
            assert drain(cluster, second).returncode == 0
            cluster.wait_for(lambda: watch.healthy() < floor, timeout=30, what="the second replica gone too")
        print(f"\nwithout the budget: {watch.report()}")
        assert watch.lowest == floor - 1, watch.report()
        with pytest.raises(AssertionError, match="fewer than"):
            assert_kept(watch, floor)
    finally:
        cluster.kubectl("delete", "deployment,pdb", "bare", "-n", NS, "--wait=false", check=False)
        cluster.wait_for(lambda: gone(cluster, NS, f"{APP}=bare"), timeout=60, what="bare pods gone")
        cluster.kubectl("uncordon", "-l", "type=kwok", check=False)  # every fake node (create_nodes)
