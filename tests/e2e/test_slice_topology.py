"""Whole TPU slices by topology on the real Kueue (v0.19.2, TAS) and JobSet (v0.12.0) controllers, kube-scheduler
and kwok: staging with its four 2x4 v5e slices kept (``min_slices = max_slices``, the condition under which the
flavor names the ``tpu-slices`` Topology, model/queues/topology.py), every Kueue object as generated, the
JobSets as ``workload new`` writes them.

Two slices (v5e-shared-s0, -s1) each have one VM taken by a pod Kueue does not manage (a namespace outside
``managedJobsNamespaceSelector``), so the cohort's quota still shows 32 free chips but only two slices are
whole. What the server stores decides each assertion:

1. the Topology and the flavor's ``topologyName`` are stored as generated;
2. a one-slice JobSet and then a second one are admitted onto the two whole slices, each child Job's pods on
   one node pool (never s0/s1, where only one VM is free);
3. a third one, within quota, is *not* admitted (no QuotaReserved, no pod: no admitted-but-unplaceable
   workload) until a blocker leaves, then it runs whole on the freed slice;
4. a two-slice JobSet's child Jobs each land whole on a pool of their own.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
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
from require import build_output, require_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "config"
POOL = "cloud.google.com/gke-nodepool"
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
TEAM = "nlp"
BLOCKED = ("v5e-shared-s0-0", "v5e-shared-s1-0")  # one VM of each of two slices taken outside Kueue


def kept_staging(tmp: Path) -> EnvironmentPlan:
    """staging with every TPU slice kept (min_slices = max_slices)."""
    data = yaml.safe_load((CONFIG / "staging.yaml").read_text())
    for pool in data["tpu_pools"]:
        pool["min_slices"] = pool["max_slices"]
    (tmp / "staging.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    [plan] = load_environments(tmp, ["staging"])
    return plan


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with own_cluster(tmp_path_factory.mktemp("k8s-tas"), complete_jobs=False) as c:
        yield c


@pytest.fixture(scope="module")
def env(cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EnvironmentPlan]:
    plan = kept_staging(tmp_path_factory.mktemp("config"))
    queues = queue_plan_of(plan)
    assert queues is not None
    try:
        install_crds(cluster)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))
    platform = platform_manifests(plan)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    cluster.apply([m for m in platform if m["kind"] in ("ResourceQuota", "ServiceAccount", "LimitRange")])
    cluster.apply(queue_manifests(queues, plan.spec.platform.priority_classes))
    nodes = [pool_node(p, i) for p in plan.pools if p.kind == "tpu" for i in range(p.node_bounds()[1])]
    cluster.create_nodes(nodes)
    names = [n["metadata"]["name"] for n in nodes]
    cluster.wait_for(lambda: _ready(cluster, names), timeout=90, what="kwok to mark the TPU nodes Ready")
    state = tmp_path_factory.mktemp("controllers")
    ca = WebhookCA(state / "webhook-ca")
    try:
        jobset = JobSetController.start(cluster, state / "jobset", ca)
        kueue = KueueController.start(cluster, kueue_configuration(queues), state / "kueue", ca)
    except subprocess.CalledProcessError as exc:
        require_or_skip("the Kueue/JobSet controllers could not be built (tools/kueue/build.sh)",
                        output=build_output(exc))  # fmt: skip
    try:
        yield plan
    finally:
        kueue.stop()
        jobset.stop()


def _ready(c: LocalCluster, names: list[str]) -> bool:
    nodes = {n["metadata"]["name"]: n for n in c.get("nodes")["items"]}
    return all(
        any(
            x["type"] == "Ready" and x["status"] == "True"
            for x in nodes.get(n, {}).get("status", {}).get("conditions", [])
        )
        for n in names
    )


def blocker(node: dict[str, Any]) -> dict[str, Any]:
    """A pod Kueue does not manage (namespace ``default``) holding one VM's 4 chips."""
    name = node["metadata"]["name"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"hold-{name}", "namespace": "default"},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": name},
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": {"google.com/tpu": "4"}, "limits": {"google.com/tpu": "4"}}}],
        },
    }  # fmt: skip


def jobset(plan: EnvironmentPlan, name: str, slices: int = 1) -> dict[str, Any]:
    req = WorkloadRequest(name, TEAM, "jobset", "v5e", "registry.k8s.io/pause:3.10", chips=8, slices=slices,
                          cpu="100m", memory="64Mi", checkpoints=False)  # fmt: skip
    [obj] = new_workload(plan, req)
    return obj


def pods(c: LocalCluster, name: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = c.get("pods", namespace=TEAM).get("items", [])
    return [p for p in items if p["metadata"].get("labels", {}).get(JOBSET_NAME) == name
            and not p["metadata"].get("deletionTimestamp")]  # fmt: skip


def placement(c: LocalCluster, name: str, jobs: int) -> dict[str, list[str]] | None:
    """Child Job index -> node pools of its pods, once ``jobs`` x 2 pods are Running."""
    current = pods(c, name)
    if len(current) != jobs * 2 or any(p["status"].get("phase") != "Running" for p in current):
        return None
    where = {n["metadata"]["name"]: n["metadata"]["labels"][POOL] for n in c.get("nodes")["items"]}
    out: dict[str, list[str]] = {}
    for p in current:
        out.setdefault(p["metadata"]["labels"]["jobset.sigs.k8s.io/job-index"], []).append(where[p["spec"]["nodeName"]])
    return out


def workload(c: LocalCluster, name: str) -> dict[str, Any] | None:
    for w in c.get("workloads.kueue.x-k8s.io", namespace=TEAM).get("items", []):
        if any(ref["name"] == name for ref in w["metadata"].get("ownerReferences", [])):
            return dict(w)
    return None


def has(w: dict[str, Any] | None, kind: str) -> bool:
    return any(x["type"] == kind and x["status"] == "True" for x in (w or {}).get("status", {}).get("conditions", []))


def test_the_topology_and_the_flavor_naming_it_are_stored(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    topology = cluster.get("topology.kueue.x-k8s.io", "tpu-slices")
    assert [lvl["nodeLabel"] for lvl in topology["spec"]["levels"]] == [POOL, "kubernetes.io/hostname"]
    flavor = cluster.get("resourceflavor.kueue.x-k8s.io", "v5e-2x4")
    assert flavor["spec"]["topologyName"] == "tpu-slices"


def test_jobs_are_admitted_only_onto_whole_free_slices(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    nodes = {n["metadata"]["name"]: n for n in cluster.get("nodes")["items"]}
    cluster.apply([blocker(nodes[n]) for n in BLOCKED])
    cluster.wait_for(
        lambda: all(cluster.get("pod", f"hold-{n}", "default")["status"].get("phase") == "Running" for n in BLOCKED),
        what="the blockers Running",
    )
    whole = {"v5e-slice", "v5e-shared-s2"}
    cluster.create([jobset(env, "a")])
    got_a = cluster.wait_for(lambda: placement(cluster, "a", 1), timeout=90, what="JobSet a Running")
    cluster.create([jobset(env, "b")])
    got_b = cluster.wait_for(lambda: placement(cluster, "b", 1), timeout=90, what="JobSet b Running")
    used = {got_a["0"][0], got_b["0"][0]}
    assert len(set(got_a["0"])) == 1 and len(set(got_b["0"])) == 1, (got_a, got_b)  # never a split slice
    assert used == whole, (got_a, got_b)
    # a third one fits the quota (nlp 16 + 16 borrowed) but no whole slice: Kueue does not admit it
    cluster.create([jobset(env, "c")])
    cluster.wait_for(lambda: workload(cluster, "c") is not None, what="the Workload of JobSet c")
    time.sleep(5)  # Kueue's scheduling cycles have had their chance
    w = workload(cluster, "c")
    assert not has(w, "QuotaReserved") and not has(w, "Admitted"), w
    assert not pods(cluster, "c")  # nothing admitted that cannot be placed
    assert cluster.get("jobset", "c", TEAM)["spec"]["suspend"] is True
    # a blocker leaves: its slice is whole again and c runs there, both pods on it
    cluster.kubectl("delete", "pod", f"hold-{BLOCKED[0]}", "-n", "default", "--wait=true")
    got_c = cluster.wait_for(lambda: placement(cluster, "c", 1), timeout=90, what="JobSet c Running on the freed slice")
    assert got_c == {"0": ["v5e-shared-s0", "v5e-shared-s0"]}, got_c
    for name in ("a", "b", "c"):
        cluster.kubectl("delete", "jobset", name, "-n", TEAM, "--wait=true")
    cluster.kubectl("delete", "pod", f"hold-{BLOCKED[1]}", "-n", "default", "--wait=true")


def test_a_two_slice_jobset_gets_two_whole_pools(cluster: LocalCluster, env: EnvironmentPlan) -> None:
    cluster.wait_for(lambda: not any(pods(cluster, n) for n in ("a", "b", "c")), timeout=90, what="earlier pods gone")
    cluster.create([jobset(env, "two", slices=2)])
    got = cluster.wait_for(lambda: placement(cluster, "two", 2), timeout=90, what="both slices Running")
    assert all(len(set(v)) == 1 for v in got.values()) and len({v[0] for v in got.values()}) == 2, got
    assert has(workload(cluster, "two"), "Admitted")
