"""Whole TPU slices by Kueue's Topology-Aware Scheduling, on the REAL Kueue v0.19.2 and JobSet v0.12.0
controllers (webhooks registered), kube-scheduler, the Job controller and kwok, with staging's queues as
``gke-accel`` renders them (the Topology ``tpu-slices``, the v5e-2x4 flavor referencing it) and staging's
TPU nodes (four 2x4 slices on ct5lp-hightpu-4t, one GKE node pool each, two VMs per slice).

What the server stores decides every assertion (Workload conditions and admission, pod ``spec.nodeName`` ->
the node's ``cloud.google.com/gke-nodepool``):

1. two slices busy and one VM of each of the two others taken (pods Kueue does not manage): 8 chips are
   free in quota and on nodes, but no whole slice; a one-slice JobSet is not admitted (no pod created),
   and runs whole on the pool that frees first;
2. a two-slice JobSet is admitted onto two whole free pools only, one child Job per pool;
3. a multi-host JobSet without the slice request is never admitted by the TAS flavor (lint's
   ``slice-topology`` rule says so before it is submitted).
After every step no Workload is admitted whose pods are not all Running (admitted but unplaceable).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from env_kueue import apply_env
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import KueueController
from gke_accel.twin.nodes import pool_node
from gke_accel.twin.webhooks import WebhookCA
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from require import build_output, require_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "config"
POOL = "cloud.google.com/gke-nodepool"
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
JOB_INDEX = "jobset.sigs.k8s.io/job-index"
SQUAT_NS = "default"  # pods no queue manages: they hold a VM's chips outside Kueue's quota


@pytest.fixture(scope="module")
def env(
    tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None
) -> Iterator[tuple[LocalCluster, EnvironmentPlan]]:
    [plan] = load_environments(CONFIG, ["staging"])
    state = tmp_path_factory.mktemp("slice-topology")
    with own_cluster(state / "k8s", complete_jobs=False) as c:
        tpu_nodes = [pool_node(p, i) for p in plan.pools if p.kind == "tpu" for i in range(p.node_bounds()[1])]
        queues = apply_env(c, plan, tpu_nodes)
        assert queues.topology == "tpu-slices"
        ca = WebhookCA(state / "webhook-ca")
        try:
            jobset = JobSetController.start(c, state / "jobset", ca)
        except subprocess.CalledProcessError as exc:
            require_or_skip("the JobSet controller could not be built", output=build_output(exc))
        try:
            kueue = KueueController.start(c, kueue_configuration(queues), state / "kueue", ca)
        except subprocess.CalledProcessError as exc:
            jobset.stop()
            require_or_skip("the Kueue controller could not be built (tools/kueue/build.sh)", output=build_output(exc))
        try:
            yield c, plan
        finally:
            kueue.stop()
            jobset.stop()


def slice_jobset(plan: EnvironmentPlan, team: str, name: str, slices: int = 1) -> dict[str, Any]:
    """``gke-accel workload new --team <team> --kind jobset --accelerator v5e --slices <n>``, pause image."""
    req = WorkloadRequest(name=name, team=team, kind="jobset", accelerator="v5e", image="registry.k8s.io/pause:3.10",
                          cpu="100m", memory="64Mi", slices=slices, checkpoints=False)  # fmt: skip
    [obj] = new_workload(plan, req)
    return obj


def lint_ok(plan: EnvironmentPlan, obj: dict[str, Any]) -> tuple[bool, list[str]]:
    report = lint_texts(plan, [(obj["metadata"]["name"], yaml.safe_dump(obj))])
    return report.ok, [f.rule for v in report.verdicts for f in v.errors]


def workload_of(c: LocalCluster, ns: str, name: str) -> dict[str, Any] | None:
    for w in c.get("workloads.kueue.x-k8s.io", namespace=ns).get("items", []):
        if any(ref["name"] == name for ref in w["metadata"].get("ownerReferences", [])):
            return dict(w)
    return None


def condition(w: dict[str, Any] | None, kind: str) -> dict[str, Any]:
    return next((x for x in (w or {}).get("status", {}).get("conditions", []) if x["type"] == kind), {})


def pods(c: LocalCluster, ns: str, name: str | None = None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = c.get("pods", namespace=ns).get("items", [])
    return [p for p in items if "deletionTimestamp" not in p["metadata"]
            and (name is None or p["metadata"].get("labels", {}).get(JOBSET_NAME) == name)]  # fmt: skip


def node_pools(c: LocalCluster) -> dict[str, str]:
    return {n["metadata"]["name"]: n["metadata"]["labels"].get(POOL, "") for n in c.get("nodes")["items"]}


def placed(c: LocalCluster, ns: str, name: str, jobs: int) -> dict[str, list[str]] | None:
    """Child Job index -> node pools of its pods, once the JobSet's ``jobs`` x 2 pods all run."""
    current = pods(c, ns, name)
    if len(current) != 2 * jobs or any(p["status"].get("phase") != "Running" for p in current):
        return None
    where = node_pools(c)
    out: dict[str, list[str]] = {}
    for p in current:
        out.setdefault(p["metadata"]["labels"][JOB_INDEX], []).append(where[p["spec"]["nodeName"]])
    return out


def running(c: LocalCluster, ns: str, name: str, jobs: int = 1) -> dict[str, list[str]]:
    got: dict[str, list[str]] = c.wait_for(lambda: placed(c, ns, name, jobs), timeout=90,
                                           what=f"{ns}/{name}: {jobs} x 2 pods Running")  # fmt: skip
    assert all(len(set(v)) == 1 for v in got.values()), got  # no slice split over two pools
    assert len({v[0] for v in got.values()}) == jobs, got  # one pool per slice
    return got


def pending_message(c: LocalCluster, ns: str, name: str) -> str | None:
    """Kueue's reason for not reserving quota, once it has tried (QuotaReserved False with a message)."""
    w = workload_of(c, ns, name)
    reserved = condition(w, "QuotaReserved")
    if reserved.get("status") == "False" and reserved.get("message"):
        return str(reserved["message"])
    return None


def no_admitted_but_unplaceable(c: LocalCluster) -> None:
    """Every admitted JobSet Workload has all its pods Running (none waits on the scheduler)."""
    for team in ("nlp", "research", "serving"):
        for w in c.get("workloads.kueue.x-k8s.io", namespace=team).get("items", []):
            if condition(w, "Admitted").get("status") != "True" or condition(w, "Finished").get("status") == "True":
                continue
            owner = w["metadata"]["ownerReferences"][0]["name"]
            count = sum(ps["count"] for ps in w["spec"]["podSets"])

            def all_running(ns: str = team, name: str = owner, n: int = count) -> bool:
                return len([p for p in pods(c, ns, name) if p["status"].get("phase") == "Running"]) == n

            c.wait_for(all_running, timeout=90, what=f"admitted {team}/{owner}: {count} pods Running")


def squat(c: LocalCluster, node: str) -> str:
    """A pod on ``node`` holding its 4 chips, bound by name (no scheduler, no Kueue): a VM of a slice in use."""
    name = f"squat-{node}"
    c.create([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": SQUAT_NS},
               "spec": {"nodeName": node, "tolerations": [{"key": "google.com/tpu", "operator": "Exists"}],
                        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                        "resources": {"requests": {"google.com/tpu": "4"},
                                                      "limits": {"google.com/tpu": "4"}}}]}}])  # fmt: skip
    c.wait_for(lambda: c.get("pod", name, SQUAT_NS).get("status", {}).get("phase") == "Running", timeout=60,
               what=f"{name} Running")  # fmt: skip
    return name


def test_the_generated_topology_and_flavor_are_stored(env: tuple[LocalCluster, EnvironmentPlan]) -> None:
    c, _ = env
    topology = c.get("topology.kueue.x-k8s.io", "tpu-slices")
    assert [x["nodeLabel"] for x in topology["spec"]["levels"]] == [POOL, "kubernetes.io/hostname"]
    assert c.get("resourceflavor.kueue.x-k8s.io", "v5e-2x4")["spec"]["topologyName"] == "tpu-slices"
    cq = c.get("clusterqueue.kueue.x-k8s.io", "nlp")
    active = condition(cq, "Active")
    assert active.get("status") == "True", cq.get("status")


def test_a_slice_is_admitted_only_onto_a_whole_free_node_pool(env: tuple[LocalCluster, EnvironmentPlan]) -> None:
    c, plan = env
    busy = {}
    for team, name in (("nlp", "a"), ("serving", "b")):
        obj = slice_jobset(plan, team, name)
        assert lint_ok(plan, obj) == (True, [])
        c.create([obj])
        busy[name] = running(c, team, name)["0"][0]
    free_pools = sorted(set(node_pools(c).values()) - set(busy.values()))
    assert len(free_pools) == 2, (busy, free_pools)
    # one VM of each free pool taken: 2 free VMs, 8 free chips, in two different slices
    squatters = [squat(c, f"{pool}-0") for pool in free_pools]
    c.create([slice_jobset(plan, "nlp", "c")])  # nlp: 8 of its 16 chips in use, the cohort 16 of 32
    message = c.wait_for(lambda: pending_message(c, "nlp", "c"), timeout=60, what="Kueue's verdict on nlp/c")
    print(f"\nnlp/c while no slice is whole: {message}")
    assert "topology" in message.lower() or "tas" in message.lower(), message
    assert condition(workload_of(c, "nlp", "c"), "Admitted").get("status") != "True"
    assert not pods(c, "nlp", "c")  # suspended: no Job, no pod, nothing bound to half a slice
    no_admitted_but_unplaceable(c)
    c.kubectl("delete", "pod", squatters[1], "-n", SQUAT_NS, "--wait=true")
    got = running(c, "nlp", "c")
    assert got == {"0": [free_pools[1], free_pools[1]]}, got
    no_admitted_but_unplaceable(c)


def test_two_slices_are_admitted_onto_two_whole_pools(env: tuple[LocalCluster, EnvironmentPlan]) -> None:
    c, plan = env
    for team, name in (("nlp", "a"), ("serving", "b")):
        c.kubectl("delete", "jobset", name, "-n", team, "--wait=true")
    c.wait_for(lambda: not pods(c, "nlp", "a") and not pods(c, "serving", "b"), timeout=90, what="a and b gone")
    squatted = {node_pools(c)[p["spec"]["nodeName"]] for p in pods(c, SQUAT_NS)}
    obj = slice_jobset(plan, "research", "d", slices=2)  # 16 chips: research's 8 and 8 borrowed
    assert lint_ok(plan, obj) == (True, [])
    c.create([obj])
    got = running(c, "research", "d", jobs=2)
    assert not {v[0] for v in got.values()} & squatted, (got, squatted)
    w = workload_of(c, "research", "d")
    assert w is not None
    [assignment] = w["status"]["admission"]["podSetAssignments"]
    assert assignment["flavors"]["google.com/tpu"] == "v5e-2x4" and assignment.get("topologyAssignment"), assignment
    no_admitted_but_unplaceable(c)


def test_a_failed_pod_restarts_the_whole_jobset_onto_whole_slices(env: tuple[LocalCluster, EnvironmentPlan]) -> None:
    """JobSet 0.12.0's restart as generated (``failurePolicy``: every child Job recreated; ``RestartJob`` and
    in-place restart are alpha gates, off): a pod of the running two-slice JobSet fails; the time from its
    deletion to all four new pods Running is what a restart costs here, the Kueue admission kept."""
    c, _ = env
    before = {p["metadata"]["uid"] for p in pods(c, "research", "d")}
    w = workload_of(c, "research", "d")
    assert w is not None
    victim = sorted(pods(c, "research", "d"), key=lambda p: p["metadata"]["name"])[-1]["metadata"]["name"]
    # the pod fails as a disrupted one does (a Spot reclaim, a host error): phase Failed with DisruptionTarget;
    # its Job fails by podFailurePolicy and the JobSet restarts without counting it (generate/jobset.py)
    disrupted = {"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet", "message": "e2e"}
    failed = json.dumps({"status": {"phase": "Failed", "conditions": [disrupted]}})
    start = time.monotonic()
    c.kubectl("patch", "pod", victim, "-n", "research", "--subresource=status", "--type=merge", "-p", failed)

    def restarted() -> dict[str, list[str]] | None:
        got = placed(c, "research", "d", 2)
        return got if got and not {p["metadata"]["uid"] for p in pods(c, "research", "d")} & before else None

    try:
        got = c.wait_for(restarted, timeout=120, what="research/d: 4 new pods Running")
    except TimeoutError as exc:
        lines = [f"{p['metadata']['name']} {p['status'].get('phase')} node={p['spec'].get('nodeName')} "
                 f"gates={p['spec'].get('schedulingGates')} sel={p['spec'].get('nodeSelector')}"
                 for p in pods(c, "research")]  # fmt: skip
        status = c.get("jobset", "d", "research").get("status")
        wl = workload_of(c, "research", "d")
        raise TimeoutError(f"{exc}\n" + "\n".join(lines) + f"\n{status}\n{(wl or {}).get('status')}") from None
    seconds = time.monotonic() - start
    print(f"\nrestart of a two-slice JobSet (full recreate): {seconds:.1f} s, pod Failed -> 4 new pods Running")
    assert all(len(set(v)) == 1 for v in got.values()) and len({v[0] for v in got.values()}) == 2, got
    status = c.get("jobset", "d", "research")["status"]
    assert status.get("restarts", 0) >= 1 and status.get("restartsCountTowardsMax", 0) == 0, status
    again = workload_of(c, "research", "d")
    assert again is not None and again["metadata"]["uid"] == w["metadata"]["uid"]  # the same admission
    no_admitted_but_unplaceable(c)


def test_a_multi_host_jobset_without_the_slice_request_is_never_admitted(
    env: tuple[LocalCluster, EnvironmentPlan],
) -> None:
    c, plan = env
    obj = slice_jobset(plan, "serving", "bare")
    annotations = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["annotations"]
    for key in [k for k in annotations if k.startswith("kueue.x-k8s.io/podset-")]:
        del annotations[key]
    assert lint_ok(plan, obj) == (False, ["slice-topology"])
    c.create([obj])
    message = c.wait_for(lambda: pending_message(c, "serving", "bare"), timeout=60, what="Kueue's verdict on bare")
    print(f"\nserving/bare: {message}")
    assert "supports only TopologyAwareScheduling" in message, message
    assert not pods(c, "serving", "bare")
