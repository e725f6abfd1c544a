"""W1 (real-engines.md): inference preempts its own team's training when the team's share is full, on
staging as shipped (config/staging.yaml whole, brought up as tests/e2e/test_environments_run.py does:
kube-apiserver with GKE's pod admission, the quota controller, kube-scheduler, kwok nodes of every pool at
max size, the real Kueue 0.19.2 and JobSet 0.12.0 with their webhooks, the objects of ``gke-accel manifests``).

Team ``serving`` (priority classes inference and training) has ``l4: 3`` nominal and may borrow nlp's idle
``l4: 1``: its L4 ceiling is 4, the whole ``l4-serve`` pool (4 nodes of 1 GPU). Written by hand from
config/staging.yaml, not from the model.

- Its training (a 4-pod Job of ``workload new``, priority training) takes all 4 L4s.
- Its serving Deployment (``workload new --kind deployment``, priority inference, 1 replica) creates its pod
  before Kueue admits it (Kueue's pod webhook gates it). Before, the one ResourceQuota ``compute`` (GPU 4 =
  the ceiling, used 4) refused that pod, Kueue never saw it and nothing was preempted (0 of 1 replicas
  after 66 s). Now inference pods are counted by ``compute-inference`` (the same ceilings, priority class
  inference only) and ``compute`` counts every other class: the pod is created, Kueue preempts the training
  Job (``withinClusterQueue: LowerPriority``), the replica runs.
- Kueue evicts whole workloads: the team goes from 4 training GPUs to 1 inference GPU (docs/queues.md
  "What a team can lose").
- Scaled to 0, the Deployment's pod goes, and the training Job is admitted again and all 4 pods run.
- The ResourceQuotas still fence pods that bypass Kueue (a pod naming a Kueue-managed Job as its controller:
  Kueue's pod webhook leaves it to the owner, jobframework.FindAncestorJobManagedByKueue): a training-class
  pod beyond the ceiling is refused by ``compute``, an inference-class one by ``compute-inference``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pods import RESTRICTED

from gke_accel.twin.cluster import KubectlError
from gke_accel.twin.environment import EnvironmentRun
from gke_accel.workloads.generate import WorkloadRequest, new_workload

NS = "serving"
CEILING = 4  # serving's l4 3 + nlp's idle l4 1 it may borrow (config/staging.yaml); = l4-serve's 4 nodes
IMAGE = "registry.k8s.io/pause:3.10"
BOUND = 60  # seconds: the replica runs within this of the Deployment's creation, training within it of the scale-down
GPU = "nvidia.com/gpu"


@pytest.fixture(scope="module")
def staging(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[EnvironmentRun]:
    with EnvironmentRun.start("staging", tmp_path_factory.mktemp("env-staging-inference")) as run:
        yield run


def workloads(r: EnvironmentRun) -> list[dict[str, Any]]:
    out = r.cluster.kubectl("get", "workloads.kueue.x-k8s.io", "-n", NS, "-o", "json").stdout
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


def owned_by(w: dict[str, Any], kind: str, name: str | None = None) -> bool:
    owners = w["metadata"].get("ownerReferences", [])
    return any(o["kind"] == kind and (name is None or o["name"] == name) for o in owners)


def condition(w: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in w.get("status", {}).get("conditions", []) if c["type"] == kind), None)


def admitted(w: dict[str, Any]) -> bool:
    c = condition(w, "Admitted")
    return c is not None and c["status"] == "True"


def running(r: EnvironmentRun, prefix: str) -> list[dict[str, Any]]:
    return [p for p in r.pods(NS) if p["metadata"]["name"].startswith(prefix) and p["status"].get("phase") == "Running"]


def gpus_used(r: EnvironmentRun, quota: str) -> int:
    used = r.cluster.get("resourcequota", quota, NS).get("status", {}).get("used", {})
    return int(used.get(f"requests.{GPU}", "0"))


def bypass_pod(name: str, priority: str, gpus: int, owner: dict[str, Any]) -> dict[str, Any]:
    """A pod that names a Kueue-managed Job as its controller: Kueue's webhook does not gate it."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NS,
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": owner["metadata"]["name"],
                    "uid": owner["metadata"]["uid"],
                    "controller": True,
                }
            ],
        },
        "spec": {
            "priorityClassName": priority,
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "main",
                    "image": IMAGE,
                    "securityContext": RESTRICTED,
                    "resources": {
                        "requests": {"cpu": "1", "memory": "1Gi", GPU: str(gpus)},
                        "limits": {"cpu": "1", "memory": "1Gi", GPU: str(gpus)},
                    },
                }
            ],
        },
    }


def refusal(r: EnvironmentRun, pod: dict[str, Any]) -> str:
    try:
        r.cluster.create([pod])
    except KubectlError as e:
        return e.stderr
    r.cluster.kubectl("delete", "pod", pod["metadata"]["name"], "-n", NS, "--wait=true")
    return ""


def test_serving_preempts_its_own_training_at_a_full_share_and_training_resumes(staging: EnvironmentRun) -> None:
    r = staging
    [train] = new_workload(r.plan, WorkloadRequest(name="train", team="serving", kind="job", accelerator="l4",
                                                   image=IMAGE, priority="training", completions=CEILING,
                                                   parallelism=CEILING))  # fmt: skip
    r.cluster.create([train])
    r.cluster.wait_for(lambda: len(running(r, "train-")) == CEILING or None, timeout=BOUND,
                       what=f"the training Job's {CEILING} pods Running")  # fmt: skip
    assert gpus_used(r, "compute") == CEILING
    job = r.cluster.get("job", "train", NS)

    # the fence for pods that bypass Kueue: training class beyond the ceiling refused, inference class counted apart
    message = refusal(r, bypass_pod("bypass-train", "training", 1, job))
    assert "exceeded quota: compute," in message and f"used: requests.{GPU}={CEILING}" in message, message

    objects = new_workload(r.plan, WorkloadRequest(name="serve", team="serving", kind="deployment",
                                                   accelerator="l4", image=IMAGE, priority="inference"))  # fmt: skip
    start = time.monotonic()
    r.cluster.create(objects)
    r.cluster.wait_for(lambda: running(r, "serve-") or None, timeout=BOUND, what="the inference replica Running")
    preempted_after = time.monotonic() - start
    [train_wl] = [w for w in workloads(r) if owned_by(w, "Job", "train")]
    evicted = condition(train_wl, "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted", train_wl.get("status")
    assert not admitted(train_wl)
    # whole workloads: the team went from 4 training GPUs to 1 inference GPU
    r.cluster.wait_for(lambda: not running(r, "train-") or None, timeout=BOUND, what="training pods gone")
    assert r.cluster.get("job", "train", NS)["spec"]["suspend"] is True
    assert gpus_used(r, "compute-inference") == 1
    r.cluster.wait_for(lambda: gpus_used(r, "compute") == 0 or None, timeout=BOUND, what="compute used 0 GPUs")
    assert refusal(r, bypass_pod("bypass-serve", "inference", 1, job)) == ""  # within compute-inference: accepted
    print(f"\nW1: inference replica Running {preempted_after:.1f} s after the Deployment was created; "
          f"team GPUs {CEILING} (training) -> 1 (inference)")  # fmt: skip

    message = refusal(r, bypass_pod("bypass-serve", "inference", CEILING, job))
    assert "exceeded quota: compute-inference," in message and f"requested: requests.{GPU}={CEILING}" in message, (
        message
    )

    start = time.monotonic()
    r.cluster.kubectl("scale", "deployment", "serve", "-n", NS, "--replicas=0")
    r.cluster.wait_for(lambda: len(running(r, "train-")) == CEILING or None, timeout=BOUND,
                       what="the training Job re-admitted and its pods Running again")  # fmt: skip
    resumed_after = time.monotonic() - start
    [train_wl] = [w for w in workloads(r) if owned_by(w, "Job", "train")]
    assert admitted(train_wl)
    assert r.cluster.get("job", "train", NS)["spec"]["suspend"] is False
    print(f"W1: training Running again {resumed_after:.1f} s after the Deployment was scaled to 0")
    assert preempted_after < BOUND and resumed_after < BOUND


NLP_NOMINAL = 1  # config/staging.yaml: nlp l4 1; it may borrow serving's idle 3


def clean(r: EnvironmentRun, namespace: str) -> None:
    kinds = "jobs,deployments,statefulsets,poddisruptionbudgets,pods"
    r.cluster.kubectl("delete", kinds, "--all", "-n", namespace, "--wait=true", "--cascade=foreground",
                      "--timeout=60s", check=False)  # fmt: skip
    r.cluster.wait_for(lambda: not r.pods(namespace) or None, timeout=BOUND, what=f"pods of {namespace} gone")


def test_a_reclaim_takes_a_whole_workload_and_the_lender_can_fall_below_its_nominal(staging: EnvironmentRun) -> None:
    """W6, measured: Kueue evicts whole workloads. nlp's 4-GPU training Job (nominal 1 + 3 borrowed from serving)
    is evicted whole when serving reclaims 1 GPU of its nominal for an inference replica: nlp goes from 4 GPUs
    to 0, below its nominal 1, and 3 of the 4 L4s stay idle while nlp's Job waits for all 4."""
    r = staging
    clean(r, NS)
    [train] = new_workload(r.plan, WorkloadRequest(name="nlp-train", team="nlp", kind="job", accelerator="l4",
                                                   image=IMAGE, priority="training", completions=CEILING,
                                                   parallelism=CEILING))  # fmt: skip
    r.cluster.create([train])

    def nlp_running() -> list[dict[str, Any]]:
        return [p for p in r.pods("nlp") if p["status"].get("phase") == "Running"]

    r.cluster.wait_for(lambda: len(nlp_running()) == CEILING or None, timeout=BOUND, what="nlp's 4 pods Running")
    objects = new_workload(r.plan, WorkloadRequest(name="serve", team="serving", kind="deployment",
                                                   accelerator="l4", image=IMAGE, priority="inference"))  # fmt: skip
    start = time.monotonic()
    r.cluster.create(objects)
    r.cluster.wait_for(lambda: running(r, "serve-") or None, timeout=BOUND, what="serving's replica Running")
    took = time.monotonic() - start
    r.cluster.wait_for(lambda: not nlp_running() or None, timeout=BOUND, what="nlp's pods gone")
    out = r.cluster.kubectl("get", "workloads.kueue.x-k8s.io", "-n", "nlp", "-o", "json").stdout
    [wl] = [w for w in json.loads(out)["items"] if owned_by(w, "Job", "nlp-train")]
    evicted = condition(wl, "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted" and not admitted(wl), wl.get("status")
    nlp_gpus = sum(
        int(c["resources"]["requests"].get(GPU, "0")) for p in nlp_running() for c in p["spec"]["containers"]
    )
    assert nlp_gpus == 0 < NLP_NOMINAL  # below its nominal: the whole workload went
    assert gpus_used(r, "compute-inference") == 1  # serving's replica
    print(f"\nW6: serving's 1-GPU replica Running {took:.1f} s after creation; nlp {CEILING} -> {nlp_gpus} GPUs "
          f"(nominal {NLP_NOMINAL}); L4s in use {CEILING} -> 1")  # fmt: skip
    r.cluster.kubectl("scale", "deployment", "serve", "-n", NS, "--replicas=0")
    r.cluster.wait_for(lambda: len(nlp_running()) == CEILING or None, timeout=BOUND,
                       what="nlp's Job re-admitted and Running once serving's replica is gone")  # fmt: skip


def test_a_statefulset_at_inference_preempts_its_teams_training_too(staging: EnvironmentRun) -> None:
    """The same with a StatefulSet (Kueue's ``statefulset`` integration: its pods are created gated, as a
    Deployment's): the serving Deployment ``workload new`` writes, as a StatefulSet of 1 replica."""
    r = staging
    clean(r, NS)
    clean(r, "nlp")
    [train] = new_workload(r.plan, WorkloadRequest(name="train", team="serving", kind="job", accelerator="l4",
                                                   image=IMAGE, priority="training", completions=CEILING,
                                                   parallelism=CEILING))  # fmt: skip
    r.cluster.create([train])
    r.cluster.wait_for(lambda: len(running(r, "train-")) == CEILING or None, timeout=BOUND,
                       what=f"the training Job's {CEILING} pods Running")  # fmt: skip
    [deployment] = [o for o in new_workload(r.plan, WorkloadRequest(name="sts", team="serving", kind="deployment",
                    accelerator="l4", image=IMAGE, priority="inference")) if o["kind"] == "Deployment"]  # fmt: skip
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": deployment["metadata"],
           "spec": {**deployment["spec"], "serviceName": "sts"}}  # fmt: skip
    start = time.monotonic()
    r.cluster.create([sts])
    r.cluster.wait_for(lambda: running(r, "sts-") or None, timeout=BOUND, what="the StatefulSet's replica Running")
    took = time.monotonic() - start
    r.cluster.wait_for(lambda: not running(r, "train-") or None, timeout=BOUND, what="training pods gone")
    [train_wl] = [w for w in workloads(r) if owned_by(w, "Job", "train")]
    evicted = condition(train_wl, "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted", train_wl.get("status")
    assert [w for w in workloads(r) if owned_by(w, "StatefulSet") or w["metadata"]["name"].startswith("statefulset")]
    print(f"\nW1 (StatefulSet): replica Running {took:.1f} s after creation")
    r.cluster.kubectl("scale", "statefulset", "sts", "-n", NS, "--replicas=0")
    r.cluster.wait_for(lambda: len(running(r, "train-")) == CEILING or None, timeout=BOUND,
                       what="the training Job re-admitted after the StatefulSet scaled to 0")  # fmt: skip
