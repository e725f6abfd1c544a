"""Upgrades as GKE performs them, against the real API server, controllers and JobSet v0.11.1
(docs/lifecycle.md): a node upgrade cordons the node and evicts its pods through the eviction API
("Configure node upgrade strategies": surge upgrades drain nodes honouring PodDisruptionBudgets).

1. A training JobSet from ``workload new`` on a multi-host v5e 2x4 slice (staging's pools, two VMs per
   slice): the slice is upgraded whole (the training default: max_surge 0, max_unavailable 2), so both
   VMs are cordoned and one pod is evicted. The eviction API marks it DisruptionTarget, its Job fails by
   podFailurePolicy, and the JobSet restarts whole (not counted against maxRestarts) on one other pool,
   every pod with the command it was given (``--resume latest``: the generated command is the user's).
2. An inference Deployment from ``workload new --kind deployment`` with its PodDisruptionBudget: with
   no spare node, the eviction API lets one replica go and refuses the second eviction (HTTP 429,
   "disruption budget"), so one replica keeps serving. (A full rolling ``kubectl drain`` of every node
   is not run here yet.)
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_multislice import _need, add_nodes, node_pools, pods, running

from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import JOBSET
from gke_accel.twin.cluster import CONTROL_PLANE, DEFAULT_CONTROLLERS, LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import install_crds, release_crds
from gke_accel.twin.nodes import pool_node
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from require import build_output, require_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "config"
NS = "ms-e2e"  # the namespace test_multislice's helpers read
RESUME = ("python", "train.py", "--resume", "latest")


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
    kubelet does when a pod is evicted is played by ``kubelet_step``, in the order the kubelet does it."""
    skip = {"pod-complete", "pod-delete"}
    stages = [s for s in sorted((c.bins.parent / "stages").glob("*.yaml")) if s.stem not in skip]
    c._spawn("kwok", [
        f"--kubeconfig={c.kubeconfig}", "--manage-all-nodes=false",
        "--manage-nodes-with-label-selector=type=kwok", "--node-ip=127.0.0.1", "--server-address=",
        "--node-port=0", *[f"--config={s}" for s in stages],
    ])  # fmt: skip


def kubelet_step(c: LocalCluster) -> None:
    """The kubelet's part of an eviction, for every pod being deleted: the container is killed (SIGTERM,
    exit 143), so a ``restartPolicy: Never`` pod ends Failed (the Job controller then reads its
    DisruptionTarget condition, set by the eviction API); then the pod object is removed."""
    items = yaml.safe_load(c.kubectl("get", "pods", "-n", NS, "-o", "yaml").stdout)["items"]
    for p in items:
        meta, spec, status = p["metadata"], p["spec"], p.get("status", {})
        if not meta.get("deletionTimestamp"):
            continue
        name = meta["name"]
        if spec.get("restartPolicy") == "Never" and status.get("phase") not in ("Failed", "Succeeded"):
            container = spec["containers"][0]["name"]
            killed = {"name": container, "ready": False, "restartCount": 0, "image": spec["containers"][0]["image"],
                      "imageID": "", "state": {"terminated": {"exitCode": 143, "reason": "Error"}}}  # fmt: skip
            patch = {"status": {"phase": "Failed", "containerStatuses": [killed]}}
            c.kubectl("patch", "pod", name, "-n", NS, "--subresource=status", "--type=merge", "-p", json.dumps(patch),
                      check=False)  # fmt: skip
        else:
            c.kubectl("delete", "pod", name, "-n", NS, "--grace-period=0", "--force", "--wait=false", check=False)


def _in_ns(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "namespace": NS}}


def _evict(c: LocalCluster, pod: str) -> subprocess.CompletedProcess[str]:
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": pod, "namespace": NS}}
    return subprocess.run(
        ["kubectl", f"--kubeconfig={c.kubeconfig}", "create", "--raw", f"/api/v1/namespaces/{NS}/pods/{pod}/eviction",
         "-f", "-"],
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
            kubelet_step(cluster)
            return bool(cluster.get("jobset", "upgr", NS).get("status", {}).get("restarts", 0) >= 1)

        cluster.wait_for(
            restarted,
            timeout=120,
            what="the evicted pod's Job to fail by podFailurePolicy and the JobSet to restart",
        )
        status = cluster.get("jobset", "upgr", NS)["status"]
        assert status["restarts"] == 1 and status.get("restartsCountTowardsMax", 0) == 0, status
        def whole_again() -> bool:
            kubelet_step(cluster)  # the old pods, deleted by the restart, go
            return len(pods(cluster, "upgr")) == 2

        cluster.wait_for(whole_again, timeout=90, what="the old pods to be gone and two new ones created")
        [after] = running(cluster, "upgr", jobs=1, timeout=90).values()
        assert len(set(after)) == 1 and after[0] != pool, after  # whole, on one other slice
        restarted = pods(cluster, "upgr")
        assert len(restarted) == 2
        for p in restarted:
            [container] = p["spec"]["containers"]
            assert container["command"] == list(RESUME)
            assert p["metadata"]["labels"].get("jobset.sigs.k8s.io/restart-attempt") == "1"
    finally:
        cluster.kubectl("delete", "jobsets", "--all", "-n", NS, "--wait=false", check=False)
        cluster.wait_for(lambda: kubelet_step(cluster) or not pods(cluster), timeout=90, what=f"the pods of {NS} gone")
        cluster.kubectl("uncordon", "--all", check=False)


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
        kubelet_step(cluster)
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
        serving_nodes = {p["spec"]["nodeName"] for p in _serving(cluster)}
        spare = [n for n, pool in node_pools(cluster).items() if pool == "l4-serve" and n not in serving_nodes]
        for node in spare:
            cluster.kubectl("cordon", node)
        first, second = (p["metadata"]["name"] for p in _serving(cluster))
        assert _evict(cluster, first).returncode == 0
        refused = _evict(cluster, second)
        assert refused.returncode != 0 and "disruption budget" in refused.stderr, refused.stderr
    finally:
        cluster.kubectl("delete", "deployment,pdb", "srv", "-n", NS, "--wait=false", check=False)
        cluster.wait_for(lambda: kubelet_step(cluster) or not _serving(cluster), timeout=60, what="srv pods gone")
        cluster.kubectl("uncordon", "--all", check=False)


def _serving(c: LocalCluster) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = yaml.safe_load(
        c.kubectl("get", "pods", "-n", NS, "-l", "app.kubernetes.io/name=srv", "-o", "yaml").stdout
    )["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp") and p["spec"].get("nodeName")]
