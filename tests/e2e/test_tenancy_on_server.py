"""Team fences on the real API server (dev's platform objects): Pod Security admission refuses
privileged and hostPath pods in a team namespace, a team member (impersonated Google group) cannot
remove or loosen the team's fences, and a normal training pod is admitted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pods import RESTRICTED

from gke_accel.model import load_environment
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.twin.cluster import KubectlError, LocalCluster

CONFIG = Path(__file__).resolve().parents[2] / "config"
GROUP = "ml-nlp@acme.example.com"  # nlp's google_group in config/dev.yaml


@pytest.fixture(scope="module")
def dev(cluster: LocalCluster) -> LocalCluster:
    cluster.apply(platform_manifests(load_environment(CONFIG / "dev.yaml")))
    return cluster


@pytest.fixture(scope="module")
def member(dev: LocalCluster) -> Path:
    """A kubeconfig acting as a member of the nlp team's Google group."""
    return dev.kubeconfig_for("alice@acme.example.com", [GROUP])


def _pod(name: str, container: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "nlp"},
        "spec": {"containers": [{"name": "main", "image": "us-docker.pkg.dev/acme/train:1", **container}], **spec},
    }


def _refused(dev: LocalCluster, obj: dict[str, Any], kubeconfig: Path) -> str:
    with pytest.raises(KubectlError) as err:
        dev.create([obj], kubeconfig=kubeconfig)
    return err.value.stderr


def test_a_privileged_pod_is_refused_in_a_team_namespace(dev: LocalCluster, member: Path) -> None:
    message = _refused(dev, _pod("root-shell", {"securityContext": {"privileged": True}}), member)
    assert "violates PodSecurity" in message and "privileged" in message


def test_a_host_path_pod_is_refused_even_for_an_administrator(dev: LocalCluster) -> None:
    pod = _pod(
        "node-fs",
        {"securityContext": RESTRICTED, "volumeMounts": [{"name": "root", "mountPath": "/host"}]},
        volumes=[{"name": "root", "hostPath": {"path": "/"}}],
    )
    message = _refused(dev, pod, dev.kubeconfig)
    assert "violates PodSecurity" in message and "hostPath" in message


def test_a_normal_training_pod_is_admitted_for_a_team_member(dev: LocalCluster, member: Path) -> None:
    pod = _pod(
        "train",
        {"securityContext": RESTRICTED, "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "2", "memory": "8Gi"}}},
        priorityClassName="training",
        serviceAccountName="workload",
    )
    dev.create([pod], kubeconfig=member)
    stored = dev.get("pod", "train", "nlp")
    assert stored["spec"]["priorityClassName"] == "training"
    dev.kubectl("delete", "pod", "train", "-n", "nlp", "--wait=false", kubeconfig=member)


@pytest.mark.parametrize(
    "args",
    [
        ("delete", "networkpolicy", "default-deny-ingress"),
        ("delete", "resourcequota", "compute"),
        ("patch", "limitrange", "defaults", "--type=merge", "-p", '{"metadata":{"labels":{"x":"y"}}}'),
        ("delete", "rolebinding", "team-member"),
        ("create", "rolebinding", "escalate", "--clusterrole=admin", f"--group={GROUP}"),
        ("label", "namespace", "nlp", "pod-security.kubernetes.io/enforce=privileged", "--overwrite"),
    ],
    ids=["delete-networkpolicy", "delete-quota", "patch-limitrange", "delete-binding", "bind-admin", "relabel-ns"],
)
def test_a_team_member_cannot_change_the_fences(dev: LocalCluster, member: Path, args: tuple[str, ...]) -> None:
    extra = () if args[1] == "namespace" else ("-n", "nlp")
    result = dev.kubectl(*args, *extra, check=False, kubeconfig=member)
    assert result.returncode != 0 and "forbidden" in result.stderr.lower(), result.stderr
    assert dev.get("networkpolicy", "default-deny-ingress", "nlp")["metadata"]["name"] == "default-deny-ingress"
