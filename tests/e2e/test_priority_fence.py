"""C5: the Kueue priority fence on the real API server. A team member (impersonated Google group) may
use only the team's priority classes, in the ``kueue.x-k8s.io/priority-class`` label as in the pods'
``priorityClassName``, and the two must agree: refused otherwise, admitted with an allowed class.

The policy is evaluated by kube-apiserver's own ValidatingAdmissionPolicy plugin (enabled in the e2e
tier), so these are the server's decisions, not this package's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pods import RESTRICTED

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.platform.fences import POLICY_NAME, priority_fence
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.twin.cluster import KubectlError, LocalCluster
from helpers import base_config, to_yaml

LABEL = "kueue.x-k8s.io/priority-class"
TRAIN, SERVE = "f-train", "f-serve"  # namespaces no other e2e module uses
GROUP = "f-train@acme.example.com"


def fenced_environment() -> EnvironmentPlan:
    data = base_config()
    data["teams"] = [
        {"name": TRAIN, "google_group": GROUP, "accelerators": {}, "priority_classes": ["training", "batch"]},
        {"name": SERVE, "google_group": "f-serve@acme.example.com", "accelerators": {}},
    ]
    data["queues"] = {}
    return load_environment_text(to_yaml(data))


@pytest.fixture(scope="module")
def fenced(cluster: LocalCluster) -> LocalCluster:
    env = fenced_environment()
    platform = platform_manifests(env)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    cluster.apply([m for m in platform if m["kind"] not in ("Namespace", "PriorityClass", "DaemonSet")])
    cluster.apply(priority_fence(env))
    # The plugin picks a new policy and binding up asynchronously: wait until it refuses. A server-side
    # dry run, and the policy's own refusal: a probe that was created before the policy took effect
    # would make every later try fail with AlreadyExists, which is no sign of the policy.
    probe = yaml.safe_dump(_job("probe", {LABEL: "inference"}, "training"))

    def refused_by_the_policy() -> bool:
        out = cluster.kubectl("create", "--dry-run=server", "-f", "-", stdin=probe, check=False)
        return out.returncode != 0 and f"ValidatingAdmissionPolicy '{POLICY_NAME}'" in out.stderr

    cluster.wait_for(refused_by_the_policy, timeout=30, what="the priority policy to take effect")
    return cluster


@pytest.fixture(scope="module")
def member(fenced: LocalCluster) -> Path:
    return fenced.kubeconfig_for("bob@acme.example.com", [GROUP])


def _pod_template(labels: dict[str, str], priority_class: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "serviceAccountName": "workload",
        "containers": [{"name": "main", "image": "us-docker.pkg.dev/acme/train:1", "securityContext": RESTRICTED}],
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"metadata": {"labels": dict(labels)}, "spec": spec}


def _job(name: str, labels: dict[str, str], priority_class: str | None, namespace: str = TRAIN) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
        "spec": {"suspend": True, "template": _pod_template({}, priority_class)},
    }


def _deployment(name: str, labels: dict[str, str], priority_class: str | None) -> dict[str, Any]:
    template = _pod_template({"app": name, **labels}, priority_class)
    del template["spec"]["restartPolicy"]  # a Deployment's pods restart Always
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": TRAIN},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": name}}, "template": template},
    }


def _pod(name: str, labels: dict[str, str], priority_class: str | None) -> dict[str, Any]:
    t = _pod_template(labels, priority_class)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": TRAIN, **t["metadata"]},
            "spec": t["spec"]}  # fmt: skip


def _refused(cluster: LocalCluster, obj: dict[str, Any], kubeconfig: Path) -> str:
    with pytest.raises(KubectlError) as err:
        cluster.create([obj], kubeconfig=kubeconfig)
    return err.value.stderr


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            _job("label-inference", {LABEL: "inference"}, "training"),
            "kueue.x-k8s.io/priority-class inference is not a priority class namespace f-train may use "
            "(training, batch)",
        ),
        (
            _job("class-inference", {}, "inference"),
            "priorityClassName inference is not a priority class namespace f-train may use (training, batch)",
        ),
        (
            _job("disagree", {LABEL: "batch"}, "training"),
            "kueue.x-k8s.io/priority-class (batch) must name the same class as the pods' priorityClassName (training)",
        ),
        (
            _deployment("template-label", {LABEL: "inference"}, "training"),
            "kueue.x-k8s.io/priority-class inference is not a priority class",
        ),
        (_pod("bare-pod", {LABEL: "inference"}, "inference"), "is not a priority class namespace f-train may use"),
    ],
    ids=["job-label", "job-class", "job-disagrees", "deployment-template-label", "pod"],
)
def test_a_team_member_is_refused_a_class_the_team_may_not_use(
    fenced: LocalCluster, member: Path, obj: dict[str, Any], message: str
) -> None:
    stderr = _refused(fenced, obj, member)
    assert "ValidatingAdmissionPolicy 'gke-accel-kueue-priority'" in stderr and message in stderr, stderr


@pytest.mark.parametrize(
    "obj",
    [
        _job("train-ok", {LABEL: "training"}, "training"),
        _job("batch-ok", {LABEL: "batch"}, "batch"),
        _job("default-class", {LABEL: "training"}, None),  # no priorityClassName: the default, training
        _job("no-label", {}, "batch"),
        _deployment("deploy-ok", {LABEL: "batch"}, "batch"),
    ],
    ids=["training", "batch", "default-class", "class-only", "deployment"],
)
def test_a_team_member_is_admitted_with_an_allowed_class(
    fenced: LocalCluster, member: Path, obj: dict[str, Any]
) -> None:
    fenced.create([obj], kubeconfig=member)
    meta = obj["metadata"]
    stored = fenced.get(obj["kind"].lower(), meta["name"], meta["namespace"])
    assert stored["metadata"]["uid"]  # stored as sent


def test_another_team_keeps_its_own_classes(fenced: LocalCluster) -> None:
    serve = fenced.kubeconfig_for("carol@acme.example.com", ["f-serve@acme.example.com"])
    fenced.create([_job("serve", {LABEL: "inference"}, "inference", namespace=SERVE)], kubeconfig=serve)
    assert fenced.get("job", "serve", SERVE)["metadata"]["labels"][LABEL] == "inference"


def test_a_relabelled_job_is_refused_on_update(fenced: LocalCluster, member: Path) -> None:
    fenced.create([_job("relabel", {LABEL: "training"}, "training")], kubeconfig=member)
    result = fenced.kubectl(
        "label", "job", "relabel", "-n", TRAIN, f"{LABEL}=inference", "--overwrite", check=False, kubeconfig=member
    )
    assert result.returncode != 0 and "is not a priority class namespace f-train may use" in result.stderr
