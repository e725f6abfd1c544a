"""lint's verdicts against the real engines, on workloads written by hand here (not by ``workload new``):
a real API server (the platform's namespaces, ResourceQuotas and LimitRanges), the real Kueue controller
(v0.19.2, webhooks registered), kube-scheduler and kwok on nodes copied from the hand-written GKE fixtures
(tests/fixtures/gke-nodes: two whole A100 80GB, one A100 split into 7 MIG 1g.10gb, one Spot TPU v6e 1x1).

Each case is submitted alone (the one before deleted): "runs" is every pod Running; "refused" is a pod
the scheduler calls Unschedulable, a pod the API server refuses (the Job's FailedCreate event), or a
workload Kueue leaves without quota. Every case asserts lint's verdict == the engines'. The table goes
to the log (pytest -s). W4 of real-engines.md: (a) the flavor's tolerations and labels, (b) native
sidecars, (c) LimitRange defaults; and W3's split-GPU selectors.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.kueue import KueueController, install_crds
from gke_accel.twin.webhooks import WebhookCA
from gke_accel.workloads.lint import lint_texts
from require import build_output, require_or_skip

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
    fixtures = {f.name: f for f in load_fixtures()}
    out = []
    for name, count in NODES.items():
        for i in range(count):
            node = fixtures[name].node
            meta = dict(node["metadata"])
            meta["name"] = f"{meta['name'][:-2]}-{i}"
            meta["labels"] = {**meta["labels"], "kubernetes.io/hostname": meta["name"], "kubernetes.io/os": "linux",
                              "kubernetes.io/arch": "amd64"}  # fmt: skip
            out.append({**node, "metadata": meta})
    return out


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
    try:
        install_crds(cluster)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))
    env = environment()
    plan = queue_plan_of(env)
    assert plan is not None
    platform = platform_manifests(env)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    cluster.apply([m for m in platform if m["kind"] in ("ResourceQuota", "ServiceAccount", "LimitRange")])
    cluster.apply(queue_manifests(plan, env.spec.platform.priority_classes))
    cluster.create_nodes(fixture_nodes())
    state = tmp_path_factory.mktemp("kueue-lint-agrees")
    try:
        controller = KueueController.start(cluster, kueue_configuration(plan), state / "kueue", WebhookCA(state / "ca"))
    except subprocess.CalledProcessError as exc:
        require_or_skip("the Kueue controller could not be built (tools/kueue/build.sh)", output=build_output(exc))
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
