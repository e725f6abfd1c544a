"""W1 (real-engines.md): inference preempts its own team's training when the team's share is full, on
staging as shipped (config/staging.yaml whole, brought up as tests/e2e/test_environments_run.py does:
kube-apiserver with GKE's pod admission, the quota controller, kube-scheduler, kwok nodes of every pool at
max size, the real Kueue 0.19.2 and JobSet 0.12.0 with their webhooks, the objects of ``gke-accel manifests``).

Staging's 5 L4s are a capacity ladder (docs/capacity.md): the reservation (pool l4-reserved, 2 nodes), on-demand
(l4-serve, 1), Spot (l4-spot, 2), one Kueue flavor per rung. The teams' L4 shares fill the rungs in order, team by
team: nlp 1 reserved; serving 1 reserved, 1 on-demand, 2 Spot. Kueue puts each pod set on one flavor, so
serving fills its whole share with one training Job per rung: 2 pods on the reservation (its 1 + nlp's idle 1,
borrowed: the flavor fits, Kueue stops there), 1 on-demand, 2 on Spot. Its ResourceQuota ceiling is 5 = its 4 +
nlp's 1 it may borrow. Written by hand from config/staging.yaml, not from the model.

- Its serving Deployment (``workload new --kind deployment``, priority inference, 1 replica) creates its pod
  before Kueue admits it (Kueue's pod webhook gates it). Before, the one ResourceQuota ``compute`` (at the
  ceiling, used to it) refused that pod, Kueue never saw it and nothing was preempted (0 of 1 replicas after
  66 s). Now inference pods are counted by ``compute-inference`` (the same ceilings, priority class inference
  only) and ``compute`` counts every other class: the pod is created, Kueue preempts one training Job of a
  rung (``withinClusterQueue: LowerPriority``), the replica runs.
- Kueue evicts whole workloads: the Job of the rung it took goes whole (docs/queues.md "What a team can lose").
- Scaled to 0, the Deployment's pod goes, and the training Job is admitted again and all 5 pods run.
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
CEILING = 5  # serving's l4 4 + nlp's idle l4 1 it may borrow (config/staging.yaml); = the ladder's 5 nodes
# the L4 ladder's Kueue flavors, <shape>-<rung> (config/staging.yaml's rungs, docs/capacity.md)
L4_RESERVATION, L4_ON_DEMAND, L4_SPOT = "l4-reservation-r-l4-serve", "l4-on-demand", "l4-spot"
# serving's training filling its share, one Job (one pod set, one flavor) per rung: (Job, pods, flavor)
RUNGS = [("train-reserved", 2, L4_RESERVATION), ("train-on-demand", 1, L4_ON_DEMAND), ("train-spot", 2, L4_SPOT)]
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


def flavor_of(w: dict[str, Any]) -> str | None:
    """The GPU flavor of an admitted one-pod-set workload."""
    if not admitted(w):
        return None
    [assignment] = w["status"]["admission"]["podSetAssignments"]
    return str(assignment["flavors"][GPU])


def job_wl(r: EnvironmentRun, name: str, namespace: str = NS) -> dict[str, Any] | None:
    out = r.cluster.kubectl("get", "workloads.kueue.x-k8s.io", "-n", namespace, "-o", "json").stdout
    return next((w for w in json.loads(out)["items"] if owned_by(w, "Job", name)), None)


def training_job(r: EnvironmentRun, name: str, pods: int, team: str = "serving") -> dict[str, Any]:
    [job] = new_workload(r.plan, WorkloadRequest(name=name, team=team, kind="job", accelerator="l4", image=IMAGE,
                                                 priority="training", completions=pods, parallelism=pods))  # fmt: skip
    return job


def fill_share(r: EnvironmentRun) -> None:
    """serving's training on its whole L4 share, a Job per rung, each admitted on the rung written by hand."""
    for name, pods, flavor in RUNGS:
        r.cluster.create([training_job(r, name, pods)])
        r.cluster.wait_for(lambda n=name: flavor_of(job_wl(r, n) or {}), timeout=BOUND, what=f"Job {name} admitted")
        assert flavor_of(job_wl(r, name) or {}) == flavor, (name, job_wl(r, name))
        r.cluster.wait_for(lambda n=name, k=pods: len(running(r, n + "-")) == k or None, timeout=BOUND,
                           what=f"Job {name}'s {pods} pods Running")  # fmt: skip
    assert len(running(r, "train-")) == CEILING


def evicted_jobs(r: EnvironmentRun) -> list[str]:
    """The training Jobs whose workloads Kueue preempted (evicted, no longer admitted)."""
    out = []
    for name, _, _ in RUNGS:
        w = job_wl(r, name) or {}
        evicted = condition(w, "Evicted")
        if evicted is not None and evicted["status"] == "True" and not admitted(w):
            assert evicted["reason"] == "Preempted", w.get("status")
            out.append(name)
    return out


def test_serving_preempts_its_own_training_at_a_full_share_and_training_resumes(staging: EnvironmentRun) -> None:
    r = staging
    fill_share(r)
    assert gpus_used(r, "compute") == CEILING
    job = r.cluster.get("job", RUNGS[0][0], NS)

    # the fence for pods that bypass Kueue: training class beyond the ceiling refused, inference class counted apart
    message = refusal(r, bypass_pod("bypass-train", "training", 1, job))
    assert "exceeded quota: compute," in message and f"used: requests.{GPU}={CEILING}" in message, message

    objects = new_workload(r.plan, WorkloadRequest(name="serve", team="serving", kind="deployment",
                                                   accelerator="l4", image=IMAGE, priority="inference"))  # fmt: skip
    start = time.monotonic()
    r.cluster.create(objects)
    r.cluster.wait_for(lambda: running(r, "serve-") or None, timeout=BOUND, what="the inference replica Running")
    preempted_after = time.monotonic() - start
    # whole workloads: Kueue evicts one Job, all its pods, on the rung it gives the replica
    [gone] = r.cluster.wait_for(lambda: evicted_jobs(r) or None, timeout=BOUND, what="a training Job preempted")
    pods = {name: k for name, k, _ in RUNGS}[gone]
    r.cluster.wait_for(lambda: not running(r, gone + "-") or None, timeout=BOUND, what=f"{gone}'s pods gone")
    assert r.cluster.get("job", gone, NS)["spec"]["suspend"] is True
    assert all(admitted(job_wl(r, n) or {}) for n, _, _ in RUNGS if n != gone)  # the other rungs' Jobs stay
    assert len(running(r, "train-")) == CEILING - pods
    assert gpus_used(r, "compute-inference") == 1
    r.cluster.wait_for(lambda: gpus_used(r, "compute") == CEILING - pods or None, timeout=BOUND,
                       what=f"compute used {CEILING - pods} GPUs")  # fmt: skip
    assert refusal(r, bypass_pod("bypass-serve", "inference", 1, job)) == ""  # within compute-inference: accepted
    print(f"\nW1: inference replica Running {preempted_after:.1f} s after the Deployment was created; Job {gone} "
          f"preempted whole; team GPUs {CEILING} training -> {CEILING - pods} training + 1 inference")  # fmt: skip

    message = refusal(r, bypass_pod("bypass-serve", "inference", CEILING, job))
    assert "exceeded quota: compute-inference," in message and f"requested: requests.{GPU}={CEILING}" in message, (
        message
    )

    start = time.monotonic()
    r.cluster.kubectl("scale", "deployment", "serve", "-n", NS, "--replicas=0")
    r.cluster.wait_for(lambda: len(running(r, "train-")) == CEILING or None, timeout=BOUND,
                       what="the training Job re-admitted and its pods Running again")  # fmt: skip
    resumed_after = time.monotonic() - start
    assert all(admitted(job_wl(r, n) or {}) for n, _, _ in RUNGS)
    assert r.cluster.get("job", gone, NS)["spec"]["suspend"] is False
    print(f"W1: training Running again {resumed_after:.1f} s after the Deployment was scaled to 0")
    assert preempted_after < BOUND and resumed_after < BOUND


NLP_NOMINAL = 1  # config/staging.yaml: nlp l4 1, on the reservation rung; it may borrow serving's idle reserved 1
SERVING_NOMINAL = 4  # 1 reserved, 1 on-demand, 2 Spot


def clean(r: EnvironmentRun, namespace: str) -> None:
    kinds = "jobs,deployments,statefulsets,poddisruptionbudgets,pods"
    r.cluster.kubectl("delete", kinds, "--all", "-n", namespace, "--wait=true", "--cascade=foreground",
                      "--timeout=60s", check=False)  # fmt: skip
    r.cluster.wait_for(lambda: not r.pods(namespace) or None, timeout=BOUND, what=f"pods of {namespace} gone")


def test_a_reclaim_takes_a_whole_workload_and_the_lender_can_fall_below_its_nominal(staging: EnvironmentRun) -> None:
    """W6, measured: Kueue evicts whole workloads. nlp's 2-GPU training Job on the reservation (nominal 1 + serving's
    reserved 1 borrowed) is evicted whole when serving's 4-replica inference Deployment (its nominal 4) reclaims
    its reserved GPU: the replicas take on-demand's 1 and Spot's 2, the fourth can only be the reservation's.
    nlp goes from 2 GPUs to 0, below its nominal 1, and its reserved L4 stays idle while the Job waits for 2."""
    r = staging
    clean(r, NS)
    r.cluster.create([training_job(r, "nlp-train", 2, team="nlp")])

    def nlp_running() -> list[dict[str, Any]]:
        return [p for p in r.pods("nlp") if p["status"].get("phase") == "Running"]

    r.cluster.wait_for(lambda: len(nlp_running()) == 2 or None, timeout=BOUND, what="nlp's 2 pods Running")
    assert flavor_of(job_wl(r, "nlp-train", "nlp") or {}) == L4_RESERVATION
    request = WorkloadRequest(name="serve", team="serving", kind="deployment", accelerator="l4", image=IMAGE,
                              priority="inference", replicas=SERVING_NOMINAL)  # fmt: skip
    objects = new_workload(r.plan, request)
    start = time.monotonic()
    r.cluster.create(objects)
    r.cluster.wait_for(lambda: len(running(r, "serve-")) == SERVING_NOMINAL or None, timeout=BOUND,
                       what=f"serving's {SERVING_NOMINAL} replicas Running")  # fmt: skip
    took = time.monotonic() - start
    r.cluster.wait_for(lambda: not nlp_running() or None, timeout=BOUND, what="nlp's pods gone")
    wl = job_wl(r, "nlp-train", "nlp") or {}
    evicted = condition(wl, "Evicted")
    assert evicted is not None and evicted["reason"] == "Preempted" and not admitted(wl), wl.get("status")
    nlp_gpus = sum(
        int(c["resources"]["requests"].get(GPU, "0")) for p in nlp_running() for c in p["spec"]["containers"]
    )
    assert nlp_gpus == 0 < NLP_NOMINAL  # below its nominal: the whole workload went
    assert gpus_used(r, "compute-inference") == SERVING_NOMINAL  # serving's replicas
    print(f"\nW6: serving's {SERVING_NOMINAL} replicas Running {took:.1f} s after creation; "
          f"nlp 2 -> {nlp_gpus} GPUs (nominal {NLP_NOMINAL}); L4s 2 nlp -> {SERVING_NOMINAL} serving")  # fmt: skip
    r.cluster.kubectl("scale", "deployment", "serve", "-n", NS, "--replicas=0")
    r.cluster.wait_for(lambda: len(nlp_running()) == 2 or None, timeout=BOUND,
                       what="nlp's Job re-admitted and Running once serving's replicas are gone")  # fmt: skip


def test_a_statefulset_at_inference_preempts_its_teams_training_too(staging: EnvironmentRun) -> None:
    """The same with a StatefulSet (Kueue's ``statefulset`` integration: its pods are created gated, as a
    Deployment's): the serving Deployment ``workload new`` writes, as a StatefulSet of 1 replica."""
    r = staging
    clean(r, NS)
    clean(r, "nlp")
    fill_share(r)
    [deployment] = [o for o in new_workload(r.plan, WorkloadRequest(name="sts", team="serving", kind="deployment",
                    accelerator="l4", image=IMAGE, priority="inference")) if o["kind"] == "Deployment"]  # fmt: skip
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": deployment["metadata"],
           "spec": {**deployment["spec"], "serviceName": "sts"}}  # fmt: skip
    start = time.monotonic()
    r.cluster.create([sts])
    r.cluster.wait_for(lambda: running(r, "sts-") or None, timeout=BOUND, what="the StatefulSet's replica Running")
    took = time.monotonic() - start
    [gone] = r.cluster.wait_for(lambda: evicted_jobs(r) or None, timeout=BOUND, what="a training Job preempted")
    r.cluster.wait_for(lambda: not running(r, gone + "-") or None, timeout=BOUND, what=f"{gone}'s pods gone")
    assert [w for w in workloads(r) if owned_by(w, "StatefulSet") or w["metadata"]["name"].startswith("statefulset")]
    print(f"\nW1 (StatefulSet): replica Running {took:.1f} s after creation; Job {gone} preempted")
    r.cluster.kubectl("scale", "statefulset", "sts", "-n", NS, "--replicas=0")
    r.cluster.wait_for(lambda: len(running(r, "train-")) == CEILING or None, timeout=BOUND,
                       what="the training Job re-admitted after the StatefulSet scaled to 0")  # fmt: skip
