"""lint's verdicts against the real engines, on workloads written by hand here (not by ``workload new``):
a real API server (the platform's namespaces, ResourceQuotas and LimitRanges), the real Kueue controller
(v0.19.2, webhooks registered), kube-scheduler and kwok on nodes copied from the hand-written GKE fixtures
(tests/fixtures/gke-nodes: two whole A100 80GB, one A100 split into 7 MIG 1g.10gb, one Spot TPU v6e 1x1).

Each case is submitted alone (the one before deleted): "runs" is every pod Running; "refused" is a pod
the scheduler calls Unschedulable, a pod the API server refuses (the Job's FailedCreate event), or a
workload Kueue leaves without quota. Every case asserts lint's verdict == the engines'. The table goes
to the log (pytest -s). W4 of real-engines.md: (a) the flavor's tolerations and labels, (b) native
sidecars, (c) LimitRange defaults, (g) quota against what Kueue already admitted (lint --kubeconfig reads
the ClusterQueue as Kueue reports it); and W3's split-GPU selectors.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from env_kueue import fixture_node_copies, start_env_kueue
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.kueue import KueueController
from gke_accel.workloads.lint import lint_texts

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from gke_nodes import load_fixtures  # noqa: E402
from helpers import base_config, to_yaml  # noqa: E402

TEAM = "ml"
NODES = {"gpu-a100-80gb-whole": 2, "gpu-mig-a100-1g10gb": 1, "tpu-v6e-spot": 1}
IMAGE = "registry.k8s.io/pause:3.10"
RESTRICTED = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
              "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}  # fmt: skip
A100 = {"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"}
MIG = {**A100, "cloud.google.com/gke-gpu-partition-size": "1g.10gb"}
V6E = {"cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "1x1"}
SPLIT = [{"key": "gke-accel/split-gpu", "operator": "Equal", "value": "1g.10gb", "effect": "NoSchedule"}]
SMALL = {"cpu": "100m", "memory": "64Mi"}
RESULTS: list[str] = []


def environment() -> EnvironmentPlan:
    fixtures = {f.name: f for f in load_fixtures()}
    data = base_config()
    data["cluster"]["node_zones"] = ["us-central1-a", "us-central1-b"]
    data["gpu_pools"] = [{**fixtures[n].pool, "min_nodes": 0, "max_nodes": NODES[n]} for n in list(NODES)[:2]]
    data["tpu_pools"] = [fixtures["tpu-v6e-spot"].pool]
    data["teams"] = [{"name": TEAM, "google_group": "ml@acme.example.com",
                      "accelerators": {"a100-80gb": 2, "a100-80gb-mig-1g-10gb": 7, "v6e": 1}}]  # fmt: skip
    data["queues"] = {}
    return load_environment_text(to_yaml(data))


def fixture_nodes() -> list[dict[str, Any]]:
    return fixture_node_copies(NODES)


def job(name: str, selector: dict[str, str], accel: dict[str, str], *, requests: dict[str, str] = SMALL,
        limits: dict[str, str] | None = None, tolerations: list[Any] | None = None,
        sidecar: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """A Job written by hand: one pod, restricted, no queue label (Kueue gives it the team's `default`)."""
    container = {"name": "main", "image": IMAGE, "securityContext": RESTRICTED,
                 "resources": {"requests": {**requests}, "limits": {**(limits or requests), **accel}}}  # fmt: skip
    pod: dict[str, Any] = {"restartPolicy": "Never", "nodeSelector": selector, "containers": [container]}
    if tolerations:
        pod["tolerations"] = tolerations
    if sidecar is not None:
        resources = {"requests": SMALL, "limits": {**SMALL, **sidecar}}
        side = {"name": "side", "image": IMAGE, "restartPolicy": "Always", "securityContext": RESTRICTED}
        pod["initContainers"] = [{**side, "resources": resources}]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": TEAM},
            "spec": {"backoffLimit": 0, "template": {"spec": pod}}}  # fmt: skip


GPU = {"nvidia.com/gpu": "1"}
CASES = {
    # W4a: no Spot toleration; Kueue's Spot flavor adds it
    "spot-no-toleration": job("spot-no-toleration", V6E, {"google.com/tpu": "1"}),
    "whole-gpu": job("whole-gpu", A100, GPU),
    "mig-with-unit": job("mig-with-unit", {**MIG, "gke-accel/gpu-unit": "mig-1g-10gb"}, GPU, tolerations=SPLIT),
    # W3: GKE's MIG selector alone; Kueue admits it on the whole-GPU flavor (tried first), no node has both
    "mig-without-unit": job("mig-without-unit", MIG, GPU, tolerations=SPLIT),
    # W4b: the native sidecar's GPU makes 2 per pod; a node has 1
    "sidecar-gpu": job("sidecar-gpu", A100, GPU, sidecar=GPU),
    "sidecar-no-gpu": job("sidecar-no-gpu", A100, GPU, sidecar={}),
    # W4c: cpu 1500m requested, no cpu limit: the LimitRange's default limit (1) is below it
    "limit-range-over": job(
        "limit-range-over", A100, GPU, requests={"cpu": "1500m", "memory": "64Mi"}, limits={"memory": "64Mi"}
    ),
    "limit-range-limited": job("limit-range-limited", A100, GPU, requests={"cpu": "1500m", "memory": "64Mi"}),
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[LocalCluster]:
    with own_cluster(tmp_path_factory.mktemp("k8s-lint-agrees"), complete_jobs=False) as c:
        yield c


@pytest.fixture(scope="module")
def kueue(cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KueueController]:
    controller = start_env_kueue(cluster, environment(), fixture_nodes(), tmp_path_factory.mktemp("kueue-lint-agrees"))
    try:
        yield controller
    finally:
        controller.stop()
        print("\n".join(["lint vs engines:", *RESULTS]))


def engine_verdict(c: LocalCluster, name: str) -> str | None:
    """'runs', 'refused: <why>', or None while undecided."""
    pods = [p for p in c.get("pods", namespace=TEAM).get("items", [])
            if p["metadata"].get("labels", {}).get("batch.kubernetes.io/job-name") == name]  # fmt: skip
    if pods and all(p["status"].get("phase") == "Running" for p in pods):
        return "runs"
    for p in pods:
        for cond in p["status"].get("conditions", []):
            if cond["type"] == "PodScheduled" and cond.get("reason") == "Unschedulable":
                return f"refused: {cond.get('message', '')[:120]}"
    events = c.get("events", namespace=TEAM).get("items", [])
    for e in events:
        if e["involvedObject"].get("name") == name and e.get("reason") == "FailedCreate":
            return f"refused: {e.get('message', '')[:160]}"
    for w in c.get("workloads.kueue.x-k8s.io", namespace=TEAM).get("items", []):
        if any(ref["name"] == name for ref in w["metadata"].get("ownerReferences", [])):
            for cond in w.get("status", {}).get("conditions", []):
                if cond["type"] == "QuotaReserved" and cond["status"] == "False":
                    return f"refused: {cond.get('message', '')[:160]}"
    return None


@pytest.mark.parametrize("case", list(CASES))
def test_lint_agrees_with_the_engines(cluster: LocalCluster, kueue: KueueController, case: str) -> None:
    doc = CASES[case]
    report = lint_texts(environment(), [(f"{case}.yaml", to_yaml(doc))])
    cluster.apply([doc])
    try:
        verdict = cluster.wait_for(lambda: engine_verdict(cluster, case), timeout=90, what=f"{case}'s verdict")
    finally:
        cluster.kubectl("delete", "job", case, "-n", TEAM, "--cascade=foreground", "--wait=true")
    said = "runs" if report.ok else "refused: " + "; ".join(f.rule for v in report.verdicts for f in v.errors)
    RESULTS.append(f"{case:22} lint {said:40} engines {verdict}")
    assert report.ok == (verdict == "runs"), f"lint: {report.render()}\nengines: {verdict}"


def _gpu_flavors_in_use(c: LocalCluster) -> dict[str, tuple[str, str]]:
    """flavor -> (nominalQuota, reserved total) of nvidia.com/gpu in team ml's ClusterQueue, as Kueue reports."""
    cq = next(q for q in c.get("clusterqueues.kueue.x-k8s.io").get("items", []) if q["metadata"]["name"] == TEAM)
    nominal = {f["name"]: r["nominalQuota"] for g in cq["spec"]["resourceGroups"] for f in g["flavors"]
               for r in f["resources"] if r["name"] == "nvidia.com/gpu"}  # fmt: skip
    held = {f["name"]: r["total"] for f in cq.get("status", {}).get("flavorsReservation", [])
            for r in f["resources"] if r["name"] == "nvidia.com/gpu"}  # fmt: skip
    return {name: (nominal[name], held.get(name, "0")) for name in nominal}


def test_lint_reads_the_quota_kueue_reports_and_warns_what_kueue_queues(
    cluster: LocalCluster, kueue: KueueController
) -> None:
    """W4g: one whole A100 held by a running Job; a 2-pod whole-A100 Job then needs 2 of the 1 the team can
    still get. lint --kubeconfig (its reading path, against the real API server) names Kueue's own numbers
    and warns; Kueue leaves the second Job without quota."""
    from gke_accel.cli.lint_view import read_cluster_queues

    holder, second = job("quota-holder", A100, GPU), job("quota-second", A100, GPU)
    second["spec"].update(parallelism=2, completions=2)
    cluster.apply([holder])
    try:
        assert cluster.wait_for(lambda: engine_verdict(cluster, "quota-holder"), timeout=90, what="holder") == "runs"
        flavor = cluster.wait_for(
            lambda: next((f for f, (_, held) in _gpu_flavors_in_use(cluster).items() if held == "1"), None),
            timeout=60, what="Kueue's reservation of the holder's GPU",
        )  # fmt: skip
        nominal, held = _gpu_flavors_in_use(cluster)[flavor]
        queues, _ = read_cluster_queues(None, str(cluster.kubeconfig))
        report = lint_texts(environment(), [("second.yaml", to_yaml(second))], cluster_queues=queues)
        said = [f.message for v in report.verdicts for f in v.findings if f.rule == "quota-now"]
        cluster.apply([second])
        verdict = cluster.wait_for(lambda: engine_verdict(cluster, "quota-second"), timeout=90, what="second")
    finally:
        for name in ("quota-second", "quota-holder"):
            cluster.kubectl("delete", "job", name, "-n", TEAM, "--ignore-not-found", "--cascade=foreground",
                            "--wait=true")  # fmt: skip
    RESULTS.append(f"{'quota-now':22} lint {said[0][:60] if said else 'no warning':40} engines {verdict}")
    assert report.ok, report.render()  # a warning: Kueue queues it, nothing refuses it
    assert verdict.startswith("refused:") and "insufficient" in verdict.lower(), verdict
    assert len(said) == 1, report.render()
    assert f"needs 2 nvidia.com/gpu of flavor {flavor}" in said[0]
    assert f"nominal {nominal}," in said[0] and f"in use {held}" in said[0], (said[0], nominal, held)
