"""Team quotas and limits as the API server enforces them (the ResourceQuota-only mode: dev's pools and
teams without `queues:`, tests/fixtures/configs/quota-only.yaml, objects applied once):
defaults, accelerator quota, priority-class fence, and the accelerator tolerations GKE's
ExtendedResourceToleration admission plugin adds (only to pods that name an accelerator)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from own_cluster import own_cluster
from pods import RESTRICTED

from gke_accel.model import load_environment
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.twin.cluster import KubectlError, LocalCluster
from helpers import QUOTA_ONLY_CONFIG

GPU, TPU = "nvidia.com/gpu", "google.com/tpu"
_pods = iter(range(10_000))


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """The quota-only environment's platform objects on a control plane of this module's own, quotas
    ready (status filled in). Not the session cluster: an environment without Kueue has PriorityClasses
    that may preempt, a Kueue environment's do not (``preemptionPolicy: Never``), and the field is
    immutable, so the two cannot share one cluster's ``training`` and ``inference``."""
    with own_cluster(tmp_path_factory.mktemp("k8s-quota-only"), scheduler=False, kwok=False) as cluster:
        yield _with_quotas(cluster)


def _with_quotas(cluster: LocalCluster) -> LocalCluster:
    cluster.apply(platform_manifests(load_environment(QUOTA_ONLY_CONFIG)))
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


def accelerator_tolerations(stored: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in stored["spec"].get("tolerations", []) if t.get("key") in (GPU, TPU)]


def test_stored_limit_range_names_no_extended_resource(dev: LocalCluster) -> None:
    """real-engines F1/F2: no accelerator in any LimitRange, also after the server's defaulting."""
    for ns in ("nlp", "vision"):
        [stored] = dev.get("limitrange", namespace=ns)["items"]
        for item in stored["spec"]["limits"]:
            assert item["default"] == {"cpu": "1", "memory": "2Gi"}
            assert item["defaultRequest"] == {"cpu": "250m", "memory": "512Mi"}
            for key in ("default", "defaultRequest", "max", "min", "maxLimitRequestRatio"):
                assert not set(item.get(key, {})) & {GPU, TPU}, (ns, key, item)


def test_cpu_only_pod_gets_cpu_and_memory_defaults_and_no_accelerators(dev: LocalCluster) -> None:
    stored = create(dev, pod("nlp", [{}]))
    resources = stored["spec"]["containers"][0]["resources"]
    assert resources == {  # no accelerator name at all, so ExtendedResourceToleration adds nothing
        "limits": {"cpu": "1", "memory": "2Gi"},
        "requests": {"cpu": "250m", "memory": "512Mi"},
    }
    assert accelerator_tolerations(stored) == []  # the accelerator taints keep it off GPU/TPU nodes

    def used() -> dict[str, str]:
        status = dev.get("resourcequota", "compute", "nlp").get("status", {})
        return dict(status.get("used", {})) if status.get("used", {}).get("pods") not in (None, "0") else {}

    counted = dev.wait_for(used, what="the quota controller to count the pod")
    assert counted[f"requests.{GPU}"] == counted[f"requests.{TPU}"] == "0"
    dev.kubectl("delete", "pod", stored["metadata"]["name"], "-n", "nlp", "--wait=false")


@pytest.mark.parametrize("resource", [GPU, TPU])
def test_accelerator_pod_gets_the_accelerator_toleration_from_the_api_server(dev: LocalCluster, resource: str) -> None:
    """GKE: "automatically applies corresponding tolerations to Pods requesting GPUs by running the
    ExtendedResourceToleration admission controller" (cloud.google.com/kubernetes-engine/docs/how-to/gpus).
    The plugin's toleration: key = the resource name, operator Exists, effect NoSchedule."""
    stored = create(dev, pod("vision" if resource == TPU else "nlp", [{resource: "1"}]))
    assert accelerator_tolerations(stored) == [{"key": resource, "operator": "Exists", "effect": "NoSchedule"}]
    dev.kubectl("delete", "pod", stored["metadata"]["name"], "-n", stored["metadata"]["namespace"], "--wait=false")


def test_pod_over_the_team_gpu_quota_is_refused_with_the_quota_message(dev: LocalCluster) -> None:
    # nlp: requests.nvidia.com/gpu 2; three 1-GPU containers
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
