"""``gke-accel explain`` against the real Kueue controller, kube-scheduler and kwok, in the five states
a job can be held in: running, over quota, waiting behind others, preempted by inference, admitted but
unschedulable. Three teams share 32 v5e chips (two 4x4 slices) and Spot L4s (``explain_environment``).

With GKE_ACCEL_RECORD_EXPLAIN=<dir> the objects explain read are written there (the fixtures of
tests/workloads/test_explain_interpret.py are recorded this way)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import redirect_stdout
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from own_cluster import own_cluster
from test_queues import admitted, fake_nodes, workload_of

from gke_accel.cli.main import main
from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.platform.fences import priority_fence
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues import QUEUE_LABEL
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.names import PRIORITY_LABEL
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.model.queues.plan import QueuePlan
from gke_accel.twin.cluster import DEFAULT_CONTROLLERS, LocalCluster
from gke_accel.twin.kueue import KueueController, install_crds
from gke_accel.workloads.explain.read import read_job
from gke_accel.workloads.verify.live import connect
from helpers import to_yaml
from queue_scenarios import queue_scenario_config
from require import build_output, require_or_skip

RECORD = os.environ.get("GKE_ACCEL_RECORD_EXPLAIN")


def queue_job(team: str, name: str, hosts: int, priority: str = "training") -> dict[str, Any]:
    """A TPU Job of ``hosts`` 4-chip pods with the queue and priority labels, created suspended: this
    module runs Kueue without its webhooks (``webhooks=False``), so the states it explains are set up
    by Kueue's reconciler alone, and the serving Deployment of ``test_1_running`` is not gated."""
    container = {
        "name": "train",
        "image": "registry.k8s.io/pause:3.10",
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        "resources": {
            "requests": {"google.com/tpu": "4", "cpu": "100m", "memory": "64Mi"},
            "limits": {"google.com/tpu": "4"},
        },
    }
    pod = {
        "restartPolicy": "Never",
        "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container],
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": team, "labels": {QUEUE_LABEL: "team", PRIORITY_LABEL: priority}},
        "spec": {"suspend": True, "parallelism": hosts, "completions": hosts, "template": {"spec": pod}},
    }


def job(
    team: str, name: str, hosts: int, priority: str = "training", hold: bool = True, **requests: str
) -> dict[str, Any]:
    """A TPU Job (test_queues.job) whose pods also name the priority class (the fence wants them to
    agree). ``hold``: its pods never find a node (kwok completes Job pods at once, which would give
    the quota back), so an admitted job keeps its quota."""
    j = queue_job(team, name, hosts, priority=priority)
    spec = j["spec"]["template"]["spec"]
    spec["priorityClassName"] = priority
    if hold:
        spec["nodeSelector"] = {"e2e.gke-accel.dev/hold": "true"}
    if requests:  # a GPU job instead
        res = spec["containers"][0]["resources"]
        res["requests"] = {"cpu": "100m", **requests}
        res["limits"] = dict(requests)
    return j


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, control_plane: None) -> Iterator[tuple[LocalCluster, Path]]:
    controllers = (*DEFAULT_CONTROLLERS, "deployment", "replicaset")
    with contextlib.ExitStack() as stack:
        c = stack.enter_context(own_cluster(tmp_path_factory.mktemp("k8s-explain"), controllers=controllers))
        try:
            install_crds(c)
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))
        plan, queues = explain_environment()
        platform = platform_manifests(plan)
        c.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
        # not the LimitRange: its explicit `nvidia.com/gpu: "0"` default makes Kueue assign a GPU flavor to
        # TPU pods too (reported to the lead); every other fence as the stack installs it
        c.apply([m for m in platform if m["kind"] in ("ResourceQuota", "ServiceAccount", "Role", "RoleBinding")])
        c.apply(priority_fence(plan))
        c.apply(queue_manifests(queues, plan.spec.platform.priority_classes))
        c.create_nodes(fake_nodes(plan))
        c.kubectl("taint", "nodes", "--all", "node.kubernetes.io/not-ready:NoSchedule-", check=False)
        controller = KueueController.start(
            c, kueue_configuration(queues), tmp_path_factory.mktemp("kueue-explain"), webhooks=False
        )
        stack.callback(controller.stop)
        config = tmp_path_factory.mktemp("cfg")
        data = _shared_data()
        (config / f"{data['environment']}.yaml").write_text(to_yaml(data))
        yield c, config


def _shared_data() -> dict[str, Any]:
    """The environment the scenarios (and the recorded fixtures of test_explain_interpret.py) run in:
    test_queues' teams and queues (tests/queue_scenarios.py) on two 4x4 v5e slices (node pools v5e-s0,
    v5e-s1; test_queues itself uses eight single-host 2x2 slices), written out for the CLI."""
    return queue_scenario_config(
        {"name": "v5e", "generation": "v5e", "topology": "4x4", "zone": "us-central1-a", "max_slices": 2}
    )


def explain_environment() -> tuple[EnvironmentPlan, QueuePlan]:
    env = load_environment_text(to_yaml(_shared_data()))
    plan = queue_plan_of(env)
    assert plan is not None
    return env, plan


def explain(env: tuple[LocalCluster, Path], team: str, name: str, state: str) -> dict[str, Any]:
    c, config = env
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["explain", name, "--env", "test", "--team", team, "--config-dir", str(config),
                     "--kubeconfig", str(c.kubeconfig), "--json"])  # fmt: skip
    assert code == 0, out.getvalue()
    result: dict[str, Any] = json.loads(out.getvalue())
    if RECORD:
        observed = read_job(connect(None, str(c.kubeconfig)), team, name)
        Path(RECORD).mkdir(parents=True, exist_ok=True)
        (Path(RECORD) / f"{state}.json").write_text(json.dumps(_strip(asdict(observed)), indent=1, sort_keys=True))
    return result


def _strip(value: Any) -> Any:
    """Recorded objects without managedFields (noise) -- nothing else is changed."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "managedFields"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _running(c: LocalCluster, ns: str, name: str, pods: int) -> bool:
    items = c.get("pods", namespace=ns)["items"]
    mine = [p for p in items if p["metadata"].get("labels", {}).get("batch.kubernetes.io/job-name") == name]
    return len(mine) == pods and all(p.get("status", {}).get("phase") == "Running" for p in mine)


def serving(name: str, replicas: int) -> dict[str, Any]:
    """An inference Deployment on the v5e pool (kwok completes Job pods at once; a Deployment's stay
    Running). No Kueue webhook runs here, so Kueue does not gate it: explain reads its pods only."""
    spec = job("q-research", name, hosts=1, hold=False)["spec"]["template"]["spec"]
    spec["restartPolicy"] = "Always"
    spec["nodeSelector"] = {"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                            "cloud.google.com/gke-tpu-topology": "4x4"}  # fmt: skip
    spec["tolerations"] = [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "q-research"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": spec}}}  # fmt: skip


def reserved(c: LocalCluster, flavor: str = "v5e-4x4", resource: str = "google.com/tpu") -> dict[str, int]:
    """What each ClusterQueue's status says it has reserved of ``resource`` in ``flavor``."""
    out = {}
    for cq in c.get("clusterqueues.kueue.x-k8s.io")["items"]:
        for f in cq.get("status", {}).get("flavorsReservation") or []:
            for r in f.get("resources") or []:
                if f["name"] == flavor and r["name"] == resource:
                    out[cq["metadata"]["name"]] = int(r.get("total", "0"))
    return out


def test_1_running(env: tuple[LocalCluster, Path]) -> None:
    c, _ = env
    c.apply([serving("r-serve", 2)])

    def running() -> bool:
        pods = [p for p in c.get("pods", namespace="q-research")["items"] if p["metadata"]["labels"].get("app")]
        return len(pods) == 2 and all(p.get("status", {}).get("phase") == "Running" for p in pods)

    c.wait_for(running, timeout=60, what="r-serve's 2 pods Running")
    result = explain(env, "q-research", "r-serve", "running")
    assert result["state"] == "running", result
    assert result["details"][0].startswith("2 pod(s) running on pool v5e-"), result
    assert "restarts: 0" in result["details"]
    c.kubectl("delete", "deployment", "r-serve", "-n", "q-research", "--wait=true")


def test_2_over_quota(env: tuple[LocalCluster, Path]) -> None:
    c, _ = env
    c.apply(
        [job("q-research", "r-fill", hosts=4), job("q-serving", "s-train", hosts=2), job("q-nlp", "n-fill", hosts=2)]
    )
    full = [("q-research", "r-fill"), ("q-serving", "s-train"), ("q-nlp", "n-fill")]
    c.wait_for(lambda: all(admitted(c, *j) for j in full), what="the cohort full (32 of 32 chips)")
    # explain reads the ClusterQueues' status, which Kueue updates after (not with) the admissions
    c.wait_for(lambda: reserved(c) == {"q-research": 16, "q-serving": 8, "q-nlp": 8},
               what="the ClusterQueues' status: 32 of 32 chips reserved")  # fmt: skip
    c.apply([job("q-nlp", "n-over", hosts=1)])
    c.wait_for(lambda: "insufficient unused quota" in json.dumps(workload_of(c, "q-nlp", "n-over")),
               what="n-over pending")  # fmt: skip
    result = explain(env, "q-nlp", "n-over", "over-quota")
    assert result["state"] == "over-quota", result
    text = "\n".join(result["details"])
    assert "insufficient unused quota for google.com/tpu in flavor v5e-4x4, 4 more needed" in text
    assert "team queue q-nlp uses 8/8 google.com/tpu of flavor v5e-4x4" in text and "the cohort has 0 free" in text


def test_3_waiting_behind_others(env: tuple[LocalCluster, Path]) -> None:
    c, _ = env
    time.sleep(1.1)  # creation timestamps have a resolution of a second: Kueue orders by them
    c.apply([job("q-nlp", "n-behind", hosts=1)])
    c.wait_for(lambda: workload_of(c, "q-nlp", "n-behind") is not None, what="n-behind's workload")
    result = explain(env, "q-nlp", "n-behind", "waiting")
    assert result["state"] == "waiting", result
    assert any(d.startswith("1 workload(s) ahead of yours in the queue: job-n-over-") for d in result["details"])


def test_4_preempted_by_inference(env: tuple[LocalCluster, Path]) -> None:
    c, _ = env
    c.apply([job("q-serving", "serve", hosts=2, priority="inference")])
    c.wait_for(lambda: admitted(c, "q-serving", "serve"), what="the inference job admitted")
    result = explain(env, "q-serving", "s-train", "preempted")
    assert result["state"] == "preempted", result
    assert result["details"][0].startswith(
        "preempted by Job q-serving/serve (priority class inference, 100000 > 10000); reason InClusterQueue"
    )


def test_5_admitted_but_unschedulable(env: tuple[LocalCluster, Path]) -> None:
    c, _ = env
    # within nlp's L4 quota and memory quota, but no L4 node has 100Gi (an L4 node: g2-standard-12, 48 GB)
    c.apply([job("q-nlp", "n-big", hosts=1, hold=False, **{"nvidia.com/gpu": "1", "memory": "100Gi"})])
    c.wait_for(lambda: admitted(c, "q-nlp", "n-big"), what="n-big admitted")

    def unschedulable() -> bool:
        pods = [p for p in c.get("pods", namespace="q-nlp")["items"]
                if p["metadata"]["labels"].get("batch.kubernetes.io/job-name") == "n-big"]  # fmt: skip
        return any(x.get("reason") == "Unschedulable" for p in pods for x in p.get("status", {}).get("conditions", []))

    c.wait_for(unschedulable, what="n-big's pod unschedulable")
    result = explain(env, "q-nlp", "n-big", "unschedulable")
    assert result["state"] == "unschedulable", result
    text = "\n".join(result["details"])
    assert "Insufficient memory" in text
    assert "pool l4: asks 100Gi memory, a node has" in text
    assert "Kueue assigned pod set main: cpu -> cpu-memory, memory -> cpu-memory, nvidia.com/gpu -> l4-spot" in text
