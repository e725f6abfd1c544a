"""Team quotas and limits as the API server enforces them (dev environment's objects applied once):
defaults, accelerator quota, priority-class fence and per-container caps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from localcluster import KubectlError, LocalCluster
from pods import RESTRICTED

from gke_accel.model import load_environment
from gke_accel.model.platform.manifests import platform_manifests

CONFIG = Path(__file__).resolve().parents[2] / "config"
GPU, TPU = "nvidia.com/gpu", "google.com/tpu"
_pods = iter(range(10_000))


@pytest.fixture(scope="module")
def dev(cluster: LocalCluster) -> LocalCluster:
    """The dev environment's platform objects on the session cluster, quotas ready (status filled in)."""
    cluster.apply(platform_manifests(load_environment(CONFIG / "dev.yaml")))
    for ns in ("nlp", "vision"):
        cluster.wait_for(
            lambda ns=ns: all(
                q.get("status", {}).get("hard") for q in cluster.get("resourcequota", namespace=ns)["items"]
            ),
            what=f"ResourceQuota status in {ns}",
        )
    return cluster


def pod(namespace: str, containers: list[dict[str, str]], priority_class: str | None = None) -> dict[str, Any]:
    """A pod with one container per entry of ``containers`` (its resource limits; {} = none)."""
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": f"c{i}",
                "image": "registry.k8s.io/pause:3.10",
                "securityContext": RESTRICTED,  # team namespaces enforce Pod Security "restricted"
                **({"resources": {"limits": lim}} if lim else {}),
            }
            for i, lim in enumerate(containers)
        ]
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    name = f"p{next(_pods)}"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def create(cluster: LocalCluster, obj: dict[str, Any]) -> dict[str, Any]:
    cluster.create([obj])
    return cluster.get("pod", obj["metadata"]["name"], obj["metadata"]["namespace"])


def refused(cluster: LocalCluster, obj: dict[str, Any]) -> str:
    with pytest.raises(KubectlError) as err:
        cluster.create([obj])
    return err.value.stderr


def test_cpu_only_pod_gets_cpu_and_memory_defaults_and_no_accelerators(dev: LocalCluster) -> None:
    stored = create(dev, pod("nlp", [{}]))
    resources = stored["spec"]["containers"][0]["resources"]
    zero = {GPU: "0", TPU: "0"}  # explicit zero defaults; a bare `max` would have defaulted them to 1 and 4
    assert resources == {
        "limits": {"cpu": "1", "memory": "2Gi", **zero},
        "requests": {"cpu": "250m", "memory": "512Mi", **zero},
    }

    def used() -> dict[str, str]:
        status = dev.get("resourcequota", "compute", "nlp").get("status", {})
        return dict(status.get("used", {})) if status.get("used", {}).get("pods") not in (None, "0") else {}

    counted = dev.wait_for(used, what="the quota controller to count the pod")
    assert counted[f"requests.{GPU}"] == counted[f"requests.{TPU}"] == "0"
    dev.kubectl("delete", "pod", stored["metadata"]["name"], "-n", "nlp", "--wait=false")


def test_pod_over_the_team_gpu_quota_is_refused_with_the_quota_message(dev: LocalCluster) -> None:
    # nlp: requests.nvidia.com/gpu 2; three 1-GPU containers (each within the per-container cap of 1)
    message = refused(dev, pod("nlp", [{GPU: "1"}] * 3))
    assert "exceeded quota: compute, requested: requests.nvidia.com/gpu=3" in message
    assert "limited: requests.nvidia.com/gpu=2" in message
    ok = create(dev, pod("nlp", [{GPU: "1"}] * 2))  # exactly the quota
    dev.kubectl("delete", "pod", ok["metadata"]["name"], "-n", "nlp", "--wait=false")


def test_pod_over_the_team_tpu_quota_is_refused_with_the_quota_message(dev: LocalCluster) -> None:
    message = refused(dev, pod("vision", [{TPU: "4"}] * 2))
    assert "exceeded quota: compute, requested: requests.google.com/tpu=8" in message
    assert "limited: requests.google.com/tpu=4" in message


def test_forbidden_priority_class_is_refused_and_allowed_ones_are_admitted(dev: LocalCluster) -> None:
    # vision may use training and batch only; pods without a class get the global default (training)
    message = refused(dev, pod("vision", [{}], priority_class="inference"))
    assert "exceeded quota: priority-classes" in message
    for cls in ("training", "batch", None):
        stored = create(dev, pod("vision", [{}], priority_class=cls))
        assert stored["spec"]["priorityClassName"] == (cls or "training")
        dev.kubectl("delete", "pod", stored["metadata"]["name"], "-n", "vision", "--wait=false")
    # a team without a restriction may use inference
    stored = create(dev, pod("nlp", [{}], priority_class="inference"))
    dev.kubectl("delete", "pod", stored["metadata"]["name"], "-n", "nlp", "--wait=false")


def test_one_container_may_not_ask_for_more_than_a_node_of_accelerators(dev: LocalCluster) -> None:
    # dev's largest GPU node has 1 L4, its largest TPU node 4 chips
    message = refused(dev, pod("nlp", [{GPU: "2"}]))
    assert "maximum nvidia.com/gpu usage per Container is 1, but limit is 2" in message
    message = refused(dev, pod("nlp", [{TPU: "8"}]))
    assert "maximum google.com/tpu usage per Container is 4, but limit is 8" in message
