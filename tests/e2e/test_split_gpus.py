"""Split GPUs stay split under Kueue: a real API server, the real Kueue controller (v0.19.2, webhooks
registered), kube-scheduler and kwok, on nodes written by hand from GKE's pages (tests/fixtures/gke-nodes:
gpu-a100-80gb-whole.yaml and gpu-mig-a100-1g10gb.yaml, not ``node_shape``).

The environment (a test config) has two pools of the same GPU model: ``a100``, two nodes of one whole
A100 80GB, and ``a100-mig``, one node of an A100 80GB split into seven 1g.10gb MIG instances. Team ``ml``
may use 2 whole GPUs and 7 MIG instances (``accelerators: {a100-80gb: 2, a100-80gb-mig-1g-10gb: 7}``).
Its Jobs are what ``gke-accel workload new`` writes for ``--accelerator a100-80gb`` and
``--accelerator a100-80gb-mig-1g-10gb``.

- A whole-GPU Job past the team's 2 whole GPUs stays pending with the MIG flavor free (Kueue: the flavor's
  taint is not tolerated), and is admitted on the whole-GPU flavor and runs on a whole A100 once one frees.
- A MIG Job past the team's 7 instances stays pending with a whole GPU free (Kueue: the whole-GPU flavor
  does not match its node selector).
- Every admitted Job's pods run on nodes of its flavor (the fixture nodes' pool label).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from env_kueue import fixture_node_copies, start_env_kueue
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.kueue import KueueController
from gke_accel.workloads.generate import WorkloadRequest, new_workload

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from gke_nodes import load_fixtures  # noqa: E402
from helpers import base_config, to_yaml  # noqa: E402

TEAM = "ml"
WHOLE_FIXTURE, MIG_FIXTURE = "gpu-a100-80gb-whole", "gpu-mig-a100-1g10gb"
# the flavors, named by hand: the shape of each pool (docs/queues.md "Split GPUs")
WHOLE, MIG = "a100-80gb", "a100-80gb-mig-1g-10gb"
NODEPOOL = "cloud.google.com/gke-nodepool"
JOB_NAME = "batch.kubernetes.io/job-name"


def environment() -> EnvironmentPlan:
    fixtures = {f.name: f for f in load_fixtures()}
    data = base_config()
    data["gpu_pools"] = [
        {**fixtures[WHOLE_FIXTURE].pool, "min_nodes": 0, "max_nodes": 2},
        {**fixtures[MIG_FIXTURE].pool, "min_nodes": 0, "max_nodes": 1},
    ]
    data["teams"] = [{"name": TEAM, "google_group": "ml@acme.example.com",
                      "accelerators": {"a100-80gb": 2, "a100-80gb-mig-1g-10gb": 7}}]  # fmt: skip
    data["queues"] = {}
    return load_environment_text(to_yaml(data))


def fixture_nodes() -> list[dict[str, Any]]:
    """The hand-written fixture nodes: two whole-A100 nodes and one MIG node, named apart."""
    return fixture_node_copies({WHOLE_FIXTURE: 2, MIG_FIXTURE: 1})


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[LocalCluster]:
    with own_cluster(tmp_path_factory.mktemp("k8s-split"), complete_jobs=False) as c:
        yield c


@pytest.fixture(scope="module")
def kueue(cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KueueController]:
    controller = start_env_kueue(cluster, environment(), fixture_nodes(), tmp_path_factory.mktemp("kueue-split"))
    try:
        yield controller
    finally:
        controller.stop()


def job(name: str, accelerator: str, pods: int) -> dict[str, Any]:
    """``gke-accel workload new --team ml --accelerator <accelerator> --parallelism/--completions <pods>
    --cpu 100m --memory 64Mi --no-checkpoints``: one GPU (or MIG instance) per pod."""
    request = WorkloadRequest(
        name=name, team=TEAM, kind="job", accelerator=accelerator, image="registry.k8s.io/pause:3.10",
        completions=pods, parallelism=pods, cpu="100m", memory="64Mi", checkpoints=False,
    )  # fmt: skip
    [obj] = new_workload(environment(), request)
    return obj


def workload_of(c: LocalCluster, name: str) -> dict[str, Any] | None:
    for w in c.get("workloads.kueue.x-k8s.io", namespace=TEAM).get("items", []):
        if any(ref["name"] == name for ref in w["metadata"].get("ownerReferences", [])):
            return dict(w)
    return None


def condition(c: LocalCluster, name: str, kind: str) -> dict[str, Any] | None:
    w = workload_of(c, name) or {}
    return next((x for x in w.get("status", {}).get("conditions", []) if x["type"] == kind), None)


def admitted_flavor(c: LocalCluster, name: str) -> str | None:
    admitted = condition(c, name, "Admitted")
    if admitted is None or admitted["status"] != "True":
        return None
    [assignment] = workload_of(c, name)["status"]["admission"]["podSetAssignments"]  # type: ignore[index]
    return str(assignment["flavors"]["nvidia.com/gpu"])


def pending_message(c: LocalCluster, name: str) -> str | None:
    """Why Kueue left the workload without quota once it has tried it (its QuotaReserved condition)."""
    reserved = condition(c, name, "QuotaReserved")
    return str(reserved.get("message", "")) if reserved is not None and reserved["status"] == "False" else None


def pools_running(c: LocalCluster, name: str, pods: int) -> set[str] | None:
    """The node pools of the Job's ``pods`` pods once all of them are Running; None before."""
    items = [
        p for p in c.get("pods", namespace=TEAM).get("items", [])
        if p["metadata"].get("labels", {}).get(JOB_NAME) == name and "deletionTimestamp" not in p["metadata"]
    ]  # fmt: skip
    if len(items) != pods or not all(p["status"].get("phase") == "Running" for p in items):
        return None
    return {c.get("node", p["spec"]["nodeName"])["metadata"]["labels"][NODEPOOL] for p in items}


def test_the_flavors_keep_whole_gpus_and_mig_instances_apart(cluster: LocalCluster, kueue: KueueController) -> None:
    c = cluster
    start = time.monotonic()
    stored = c.get("resourceflavor.kueue.x-k8s.io", MIG)["spec"]
    assert stored["nodeTaints"] == [{"key": "gke-accel/split-gpu", "value": "1g.10gb", "effect": "NoSchedule"}]
    assert "gke-accel/split-gpu" not in {t["key"] for t in stored.get("tolerations", [])}
    queue = c.get("clusterqueue.kueue.x-k8s.io", TEAM)["spec"]  # one ClusterQueue per team, named after it
    [gpus] = [g for g in queue["resourceGroups"] if g["coveredResources"] == ["nvidia.com/gpu"]]
    assert {f["name"]: f["resources"][0]["nominalQuota"] for f in gpus["flavors"]} == {WHOLE: "2", MIG: "7"}

    # whole GPUs: two fill the team's whole-GPU quota and run on the whole-A100 pool
    c.apply([job("whole-2", "a100-80gb", 2)])
    c.wait_for(lambda: admitted_flavor(c, "whole-2") is not None, what="whole-2 admitted")
    assert admitted_flavor(c, "whole-2") == WHOLE
    c.wait_for(lambda: pools_running(c, "whole-2", 2) is not None, timeout=90, what="whole-2's pods Running")
    assert pools_running(c, "whole-2", 2) == {"a100"}
    # one more whole GPU: the MIG flavor has 7 free instances, and Kueue still does not admit it there
    c.apply([job("whole-extra", "a100-80gb", 1)])
    why = c.wait_for(lambda: pending_message(c, "whole-extra"), what="whole-extra tried by Kueue")
    assert f"untolerated taint {{gke-accel/split-gpu 1g.10gb NoSchedule <nil>}} in flavor {MIG}" in why, why

    # MIG instances: seven fill the team's MIG quota and run on the MIG pool
    c.apply([job("mig-7", "a100-80gb-mig-1g-10gb", 7)])
    c.wait_for(lambda: admitted_flavor(c, "mig-7") is not None, what="mig-7 admitted")
    assert admitted_flavor(c, "mig-7") == MIG
    c.wait_for(lambda: pools_running(c, "mig-7", 7) is not None, timeout=90, what="mig-7's pods Running")
    assert pools_running(c, "mig-7", 7) == {"a100-mig"}
    assert admitted_flavor(c, "whole-extra") is None  # still not on the (now full) MIG flavor

    # a whole GPU frees: the pending whole-GPU job goes there, and runs on a whole A100
    c.kubectl("delete", "job", "whole-2", "-n", TEAM, "--cascade=foreground", "--wait=true")
    c.wait_for(lambda: admitted_flavor(c, "whole-extra") is not None, what="whole-extra admitted")
    assert admitted_flavor(c, "whole-extra") == WHOLE
    c.wait_for(lambda: pools_running(c, "whole-extra", 1) is not None, timeout=90, what="whole-extra's pod Running")
    assert pools_running(c, "whole-extra", 1) == {"a100"}

    # one more MIG instance: a whole GPU is free, and Kueue does not admit it there
    c.apply([job("mig-extra", "a100-80gb-mig-1g-10gb", 1)])
    why = c.wait_for(lambda: pending_message(c, "mig-extra"), what="mig-extra tried by Kueue")
    assert f"flavor {WHOLE} doesn't match node affinity" in why, why
    assert admitted_flavor(c, "mig-extra") is None
    assert time.monotonic() - start < 240
