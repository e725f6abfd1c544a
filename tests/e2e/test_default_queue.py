"""Workloads without the queue label in an environment with queues, on the real Kueue v0.19.2 controller
(config/dev.yaml whole, as tests/e2e/environments_run.py brings it up: kwok nodes, the stack's Kueue and
JobSet releases with their webhooks, the objects of ``gke-accel manifests``).

Kueue runs with ``manageJobsWithoutQueueName: true`` (model/queues/install.py), so a Job or pod a team
member writes without ``kueue.x-k8s.io/queue-name`` is suspended; without a LocalQueue to take it, for
good. Kueue's LocalQueue defaulting (KEP-2936, feature gate LocalQueueDefaulting: GA and locked on in
v0.17, pkg/features/kube_features.go) labels it ``queue-name: default`` when the namespace has a
LocalQueue named ``default``; the stack puts one in every team namespace, pointing at the team's
ClusterQueue (model/queues/names.py DEFAULT_LOCAL_QUEUE_NAME). Accepted: an unlabeled Job runs on the
team's share, an unlabeled Pod is admitted. Rejected: with the ``default`` LocalQueue removed, the same
Job stays suspended with no pod (what every team namespace did before).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from pods import RESTRICTED

from gke_accel.twin.environment import EnvironmentRun
from gke_accel.workloads.generate import WorkloadRequest, new_workload

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
IMAGE = "registry.k8s.io/pause:3.10"
WAIT = 60


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[EnvironmentRun]:
    with EnvironmentRun.start("dev", tmp_path_factory.mktemp("env-dev-default-queue")) as run:
        yield run


def without_queue_label(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as a user writes it by hand: no queue label anywhere (object or pod template)."""
    obj["metadata"].get("labels", {}).pop(QUEUE_LABEL, None)
    template = obj.get("spec", {}).get("template", {})
    template.get("metadata", {}).get("labels", {}).pop(QUEUE_LABEL, None)
    return obj


def plain_l4_job(r: EnvironmentRun, name: str, team: str) -> dict[str, Any]:
    """``gke-accel workload new --team T --accelerator l4`` with the queue label removed."""
    [job] = new_workload(r.plan, WorkloadRequest(name=name, team=team, kind="job", accelerator="l4", image=IMAGE))
    assert job["kind"] == "Job"
    return without_queue_label(job)


def workloads_of(r: EnvironmentRun, namespace: str, owner: str) -> list[dict[str, Any]]:
    out = r.cluster.kubectl("get", "workloads.kueue.x-k8s.io", "-n", namespace, "-o", "json").stdout
    return [w for w in json.loads(out)["items"]
            if any(o.get("name") == owner for o in w["metadata"].get("ownerReferences", []))]  # fmt: skip


def admitted_to(workload: dict[str, Any]) -> str | None:
    status = workload.get("status", {})
    admitted = any(c["type"] == "Admitted" and c["status"] == "True" for c in status.get("conditions", []))
    return str(status["admission"]["clusterQueue"]) if admitted else None


def test_an_unlabeled_job_is_queued_to_the_default_local_queue_and_runs(dev: EnvironmentRun) -> None:
    assert dev.local_queues("nlp") == ["default", "team"]
    dev.cluster.create([plain_l4_job(dev, "plain", "nlp")])
    stored = dev.cluster.get("job", "plain", "nlp")
    assert stored["metadata"]["labels"][QUEUE_LABEL] == "default"  # Kueue's job webhook set it
    dev.cluster.wait_for(lambda: admitted_to(next(iter(workloads_of(dev, "nlp", "plain")), {})), timeout=WAIT,
                         what="the Job's Workload admitted")  # fmt: skip
    [workload] = workloads_of(dev, "nlp", "plain")
    assert workload["spec"]["queueName"] == "default" and admitted_to(workload) == "nlp"

    def running() -> list[dict[str, Any]] | None:
        pods = dev.pods("nlp")
        return pods if pods and all(p["status"].get("phase") == "Running" for p in pods) else None

    [pod] = dev.cluster.wait_for(running, timeout=WAIT, what="the unlabeled Job's pod Running")
    assert dev.pool_of(pod["spec"]["nodeName"]) == "l4-dev"
    assert dev.cluster.get("job", "plain", "nlp")["spec"]["suspend"] is False
    dev.cluster.kubectl("delete", "job", "plain", "-n", "nlp", "--wait=true", "--cascade=foreground")


def test_an_unlabeled_pod_is_admitted_to_the_teams_cluster_queue(dev: EnvironmentRun) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "plain-pod", "namespace": "vision"},
        "spec": {
            "priorityClassName": "training",  # vision may use training and batch (config/dev.yaml)
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": IMAGE, "securityContext": RESTRICTED,
                            "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                          "limits": {"cpu": "1", "memory": "1Gi"}}}],
        },
    }  # fmt: skip
    dev.cluster.create([pod])
    stored = dev.cluster.get("pod", "plain-pod", "vision")
    assert stored["metadata"]["labels"][QUEUE_LABEL] == "default"  # Kueue's pod webhook set it
    dev.cluster.wait_for(lambda: admitted_to(next(iter(workloads_of(dev, "vision", "plain-pod")), {})),
                         timeout=WAIT, what="the Pod's Workload admitted")  # fmt: skip
    [workload] = workloads_of(dev, "vision", "plain-pod")
    assert admitted_to(workload) == "vision"
    dev.cluster.wait_for(
        lambda: not dev.cluster.get("pod", "plain-pod", "vision")["spec"].get("schedulingGates"),
        timeout=WAIT,
        what="Kueue's scheduling gate removed",
    )
    dev.cluster.kubectl("delete", "pod", "plain-pod", "-n", "vision", "--wait=true")


def dry_run_labels(r: EnvironmentRun, obj: dict[str, Any]) -> dict[str, str]:
    """The labels the API server's admission (Kueue's webhook included) gives ``obj``, without creating it."""
    text = yaml.safe_dump(obj)
    out = r.cluster.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-", stdin=text).stdout
    return dict(json.loads(out)["metadata"].get("labels") or {})


def inadmissible(workloads: list[dict[str, Any]]) -> str | None:
    """The message of a Workload's QuotaReserved=False condition with reason Inadmissible, if any:
    Kueue's workload controller sets it when the Workload's LocalQueue does not exist
    (pkg/controller/core/workload_controller.go, "LocalQueue %s doesn't exist")."""
    for w in workloads:
        for c in w.get("status", {}).get("conditions", []):
            if (c["type"], c["status"], c.get("reason")) == ("QuotaReserved", "False", "Inadmissible"):
                return str(c.get("message", ""))
    return None


def test_without_the_default_local_queue_an_unlabeled_job_is_suspended_for_good(dev: EnvironmentRun) -> None:
    dev.cluster.kubectl("delete", "localqueues.kueue.x-k8s.io", "default", "-n", "vision", "--wait=true")
    assert dev.local_queues("vision") == ["team"]
    job = plain_l4_job(dev, "plain", "vision")
    # Kueue's webhook defaults from its queue cache, which drops the deleted LocalQueue a moment later:
    # wait for the webhook's own answer (a server-side dry run no longer labelled for `default`)
    dev.cluster.wait_for(lambda: QUEUE_LABEL not in dry_run_labels(dev, job), timeout=WAIT,
                         what="Kueue's webhook no longer defaulting to the deleted LocalQueue")  # fmt: skip
    dev.cluster.create([job])
    stored = dev.cluster.get("job", "plain", "vision")
    assert QUEUE_LABEL not in stored["metadata"].get("labels", {})
    assert stored["spec"]["suspend"] is True  # manageJobsWithoutQueueName: Kueue's webhook suspended it
    # Kueue has decided: the Job's Workload is inadmissible for want of a LocalQueue (not "not yet looked at")
    message = dev.cluster.wait_for(lambda: inadmissible(workloads_of(dev, "vision", "plain")), timeout=WAIT,
                                   what="the Job's Workload marked Inadmissible (no LocalQueue)")  # fmt: skip
    assert "LocalQueue" in message and "doesn't exist" in message, message
    assert dev.cluster.get("job", "plain", "vision")["spec"]["suspend"] is True
    assert dev.pods("vision") == []
    assert all(admitted_to(w) is None for w in workloads_of(dev, "vision", "plain"))
