"""An elastic training Job (``workload new --elastic``) resized while it runs, on the real Kueue v0.19.2
controller (workload slices, ``ElasticJobsViaWorkloadSlices`` on by default) with its webhooks registered,
kube-scheduler, the Job controller and kwok.

Three teams share eight single-host v5e 2x2 VMs (32 chips; q-research 16, q-nlp 8, q-serving 8: the
queue scenarios of tests/queue_scenarios.py). What the server stores decides every assertion:

1. research's elastic Job starts with 2 workers (8 chips): admitted, 2 pods Running;
2. grown to 4 workers while nlp and serving hold their 16 chips: a new Workload slice for 4 pods is
   admitted against research's quota (16), 4 pods Running, the first 2 pods the same (UIDs, no restart);
3. grown to 6 (24 chips, 8 more than research's quota with nothing to borrow): the new slice is not
   admitted, the 2 new pods stay gated (no node), the 4 running pods are untouched; when nlp's job ends
   the slice is admitted on the borrowed chips and the gated pods run;
4. shrunk to 2: the ClusterQueue's reserved chips drop to 8 and only 2 pods remain.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from env_kueue import apply_env
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.kueue import KueueController
from gke_accel.twin.nodes import pool_node
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from helpers import to_yaml
from queue_scenarios import queue_scenario_config
from require import build_output, require_or_skip

JOB_NAME = "batch.kubernetes.io/job-name"
TPU = "google.com/tpu"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalCluster, EnvironmentPlan]]:
    data = queue_scenario_config(
        {"name": "v5e", "generation": "v5e", "topology": "2x2", "zone": "us-central1-a", "max_slices": 8}
    )
    plan = load_environment_text(to_yaml(data))
    with own_cluster(tmp_path_factory.mktemp("k8s-elastic"), complete_jobs=False) as c:
        queues = apply_env(c, plan, [pool_node(p, i) for p in plan.pools for i in range(p.node_bounds()[1])])
        try:
            kueue = KueueController.start(c, kueue_configuration(queues), tmp_path_factory.mktemp("kueue"))
        except subprocess.CalledProcessError as exc:
            require_or_skip("the Kueue controller could not be built (tools/kueue/build.sh)", output=build_output(exc))
        with kueue:
            yield c, plan


def job(plan: EnvironmentPlan, team: str, name: str, workers: int, elastic: bool) -> dict[str, Any]:
    req = WorkloadRequest(name=name, team=team, kind="job", accelerator="v5e", image="registry.k8s.io/pause:3.10",
                          chips=4, parallelism=workers, completions=1 if elastic else workers, cpu="100m",
                          memory="64Mi", checkpoints=False, elastic=elastic)  # fmt: skip
    [obj] = new_workload(plan, req)
    return obj


def pods(c: LocalCluster, ns: str, name: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = c.get("pods", namespace=ns).get("items", [])
    return [p for p in items if p["metadata"].get("labels", {}).get(JOB_NAME) == name
            and not p["metadata"].get("deletionTimestamp")]  # fmt: skip


def running(c: LocalCluster, ns: str, name: str) -> dict[str, dict[str, Any]]:
    """UID -> pod, for the Job's pods that are Running on a node."""
    return {p["metadata"]["uid"]: p for p in pods(c, ns, name) if p["status"].get("phase") == "Running"}


def reserved_chips(c: LocalCluster, cq: str) -> int:
    for flavor in c.get("clusterqueue.kueue.x-k8s.io", cq).get("status", {}).get("flavorsReservation", []):
        for r in flavor["resources"]:
            if r["name"] == TPU and flavor["name"] != "cpu-memory":
                return int(r["total"])
    return 0


def admitted_counts(c: LocalCluster, ns: str, name: str) -> list[int]:
    """Pod counts (``spec.podSets[].count``) of the Job's admitted, unfinished Workloads (its current slice;
    a shrink is written there, the admission record keeps the size it was admitted at)."""
    out = []
    for w in c.get("workloads.kueue.x-k8s.io", namespace=ns).get("items", []):
        if not any(ref["name"] == name for ref in w["metadata"].get("ownerReferences", [])):
            continue
        conds = {x["type"]: x["status"] for x in w.get("status", {}).get("conditions", [])}
        if conds.get("Admitted") == "True" and conds.get("Finished") != "True":
            out += [ps["count"] for ps in w["spec"]["podSets"]]
    return out


def scale(c: LocalCluster, ns: str, name: str, workers: int) -> None:
    c.kubectl("patch", "job", name, "-n", ns, "--type=merge", "-p", json.dumps({"spec": {"parallelism": workers}}))


def test_an_elastic_job_grows_and_shrinks_while_its_pods_keep_running(
    env: tuple[LocalCluster, EnvironmentPlan],
) -> None:
    c, plan = env
    c.create([job(plan, "q-research", "elastic", 2, elastic=True)])
    first = c.wait_for(lambda: len(r := running(c, "q-research", "elastic")) == 2 and r, timeout=90,
                       what="2 workers Running")  # fmt: skip
    c.create([job(plan, "q-nlp", "nlp", 2, elastic=False), job(plan, "q-serving", "serve", 2, elastic=False)])
    c.wait_for(lambda: len(running(c, "q-nlp", "nlp")) == 2 and len(running(c, "q-serving", "serve")) == 2,
               timeout=90, what="nlp and serving hold their 16 chips")  # fmt: skip
    # grow to 4 within research's own 16: a new slice admitted, two more pods, the first two untouched
    scale(c, "q-research", "elastic", 4)
    grown = c.wait_for(lambda: len(r := running(c, "q-research", "elastic")) == 4 and r, timeout=90,
                       what="4 workers Running")  # fmt: skip
    assert set(first) <= set(grown)
    for uid, pod in first.items():
        assert grown[uid]["status"]["containerStatuses"][0]["restartCount"] == 0
        assert grown[uid]["spec"]["nodeName"] == pod["spec"]["nodeName"]
    # the ClusterQueue's status follows the admission asynchronously
    c.wait_for(lambda: admitted_counts(c, "q-research", "elastic") == [4] and reserved_chips(c, "q-research") == 16,
               what="the slice for 4 admitted, 16 chips reserved")  # fmt: skip
    # grow past the quota with nothing to borrow: the slice waits, its new pods stay gated, none runs
    scale(c, "q-research", "elastic", 6)
    c.wait_for(lambda: len(pods(c, "q-research", "elastic")) == 6, timeout=60, what="6 pods of the Job")
    waiting = [p for p in pods(c, "q-research", "elastic") if p["metadata"]["uid"] not in grown]
    assert len(waiting) == 2 and not any(p["spec"].get("nodeName") for p in waiting), waiting
    assert all(p["spec"].get("schedulingGates") for p in waiting), waiting
    assert admitted_counts(c, "q-research", "elastic") == [4] and reserved_chips(c, "q-research") == 16
    assert set(running(c, "q-research", "elastic")) == set(grown)
    # nlp's job ends: research borrows its 8 chips, the slice for 6 is admitted, the gated pods run
    c.kubectl("delete", "job", "nlp", "-n", "q-nlp", "--cascade=foreground", "--wait=true")
    six = c.wait_for(lambda: len(r := running(c, "q-research", "elastic")) == 6 and r, timeout=90,
                     what="6 workers Running on borrowed chips")  # fmt: skip
    assert set(grown) <= set(six) and all(p["status"]["containerStatuses"][0]["restartCount"] == 0
                                          for p in six.values())  # fmt: skip
    c.wait_for(lambda: admitted_counts(c, "q-research", "elastic") == [6] and reserved_chips(c, "q-research") == 24,
               what="the slice for 6 admitted, 24 chips reserved")  # fmt: skip
    # shrink to 2: the quota is released at once, only 2 pods remain
    scale(c, "q-research", "elastic", 2)
    c.wait_for(lambda: reserved_chips(c, "q-research") == 8, timeout=60, what="research's reservation back to 8")
    c.wait_for(lambda: len(pods(c, "q-research", "elastic")) == 2, timeout=60, what="2 pods left")
    assert admitted_counts(c, "q-research", "elastic") == [2]
