"""What staging installs with Helm, on a real API server with kube-scheduler and kwok: the Kueue and
JobSet releases rendered with the stack's values (tests/charts.py, ``helm template``) and the generated
queue chart, applied to a control plane of its own whose fake nodes are staging's (system pool,
accelerator pools) plus one untainted node of no pool of ours. Both controllers' pods are bound to
system-pool nodes and nowhere else.

Own control plane: the releases register webhooks and aggregated APIs whose servers (the
controllers' pods) are only simulated by kwok here, so they must not reach the session cluster.
Order: CRDs, then the queue objects (checked by the CRDs' schemas; on GKE the stack applies them
after Kueue is up, and here no Kueue process answers its ClusterQueue webhook), then the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kueue_defaults import stored_spec
from own_cluster import own_cluster

from charts import pod_specs, releases, render_release
from gke_accel.model import load_environment
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.twin.cluster import DEFAULT_CONTROLLERS, LocalCluster
from gke_accel.twin.kueue import wait_established
from gke_accel.twin.nodes import environment_nodes

CONFIG = Path(__file__).resolve().parents[2] / "config"
ENV = "staging"  # the shipped environment with Kueue queues
DECOY = {  # a node with no taint and no pool label of ours: only the nodeSelector keeps controllers off it
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "untainted-0", "labels": {"kubernetes.io/hostname": "untainted-0"}},
    "spec": {},
    "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
               "capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"}},
}  # fmt: skip
SYSTEM_POOL_LABEL = ("cloud.google.com/gke-nodepool", "system")  # GKE's pool-name label; config/staging.yaml


def _ready(c: LocalCluster, names: list[str]) -> bool:
    for name in names:
        conditions = c.get("node", name).get("status", {}).get("conditions", [])
        if not any(x["type"] == "Ready" and x["status"] == "True" for x in conditions):
            return False
    return True


@pytest.fixture(scope="module")
def installed(
    tmp_path_factory: pytest.TempPathFactory, shipped: dict[str, Any], shipped_stacks: Path
) -> Iterator[tuple[LocalCluster, dict[str, list[dict[str, Any]]]]]:
    doc = shipped[ENV]
    rendered = {name: render_release(doc, shipped_stacks / ENV, name) for name in releases(doc)}
    controllers = (*DEFAULT_CONTROLLERS, "deployment", "replicaset")
    with own_cluster(tmp_path_factory.mktemp("k8s-helm"), controllers=controllers) as c:
        nodes = [*environment_nodes(load_environment(CONFIG / f"{ENV}.yaml"), per_pool=2), DECOY]
        c.create_nodes(nodes)
        names = [n["metadata"]["name"] for n in nodes]
        c.wait_for(lambda: _ready(c, names), timeout=90, what="kwok to mark the nodes Ready")
        c.kubectl("taint", "nodes", "--all", "node.kubernetes.io/not-ready:NoSchedule-", check=False)
        # helm_release create_namespace = true; the LocalQueues live in the team namespaces
        team_namespaces = [m for m in platform_manifests(load_environment(CONFIG / f"{ENV}.yaml"))
                           if m["kind"] == "Namespace"]  # fmt: skip
        release_namespaces = [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": releases(doc)[n]["namespace"]}}
            for n in ("kueue", "jobset")
        ]
        c.apply([*team_namespaces, *release_namespaces])
        everything = [o for objects in rendered.values() for o in objects]
        crds = [o for o in everything if o["kind"] == "CustomResourceDefinition"]
        c.apply(crds, "--server-side")
        for crd in crds:
            wait_established(c, crd["metadata"]["name"])
        c.apply(rendered["gke-accel-queues"], "--server-side")
        # both charts write the namespace into every namespaced object (the release's, or kube-system)
        c.apply([o for n in ("kueue", "jobset") for o in rendered[n] if o["kind"] != "CustomResourceDefinition"],
                "--server-side")  # fmt: skip
        yield c, rendered


def _bound(c: LocalCluster, namespace: str, deployment: str) -> list[dict[str, Any]]:
    """The Running pods of the Deployment, once it has as many as it wants; else []."""
    want = c.get("deployment", deployment, namespace)["spec"].get("replicas", 1)
    pods = [
        p
        for p in c.get("pods", namespace=namespace)["items"]
        if p["metadata"]["name"].startswith(f"{deployment}-") and p["status"].get("phase") == "Running"
    ]
    return pods if len(pods) >= want else []


@pytest.mark.parametrize("release", ["kueue", "jobset"])
def test_the_controllers_pods_bind_to_system_pool_nodes_only(
    release: str, installed: tuple[LocalCluster, dict[str, list[dict[str, Any]]]], shipped: dict[str, Any]
) -> None:
    c, rendered = installed
    namespace = releases(shipped[ENV])[release]["namespace"]
    [deployment] = pod_specs(rendered[release])
    pods = c.wait_for(lambda: _bound(c, namespace, deployment), timeout=120,
                      what=f"the {deployment} pods to run")  # fmt: skip
    nodes = {n["metadata"]["name"]: n for n in c.get("nodes")["items"]}
    key, value = SYSTEM_POOL_LABEL
    for pod in pods:
        node = nodes[pod["spec"]["nodeName"]]
        assert node["metadata"]["labels"].get(key) == value, f"{pod['metadata']['name']} on {node['metadata']['name']}"
    # and the system pool is tainted, so an ordinary pod with no toleration is never put there
    assert any(t["key"] == "components.gke.io/gke-managed-components" for n in nodes.values()
               if n["metadata"]["labels"].get(key) == value for t in n["spec"].get("taints", []))  # fmt: skip


def test_the_queue_chart_is_stored_as_declared(
    installed: tuple[LocalCluster, dict[str, list[dict[str, Any]]]],
) -> None:
    """Every object of the queue chart, ClusterQueues included, as the server stored it: what we
    declared plus the CRDs' defaults (kueue_defaults.py), nothing more and nothing less."""
    c, rendered = installed
    kinds = set()
    for o in rendered["gke-accel-queues"]:
        meta = o["metadata"]
        stored = c.get(f"{o['kind'].lower()}.kueue.x-k8s.io", meta["name"], meta.get("namespace"))
        if "spec" in o:
            assert stored["spec"] == stored_spec(o), f"{o['kind']} {meta['name']}"
        else:  # WorkloadPriorityClass: value and description at the top level
            assert {k: stored.get(k) for k in o if k not in ("metadata", "apiVersion")} == {
                k: v for k, v in o.items() if k not in ("metadata", "apiVersion")}  # fmt: skip
        kinds.add(o["kind"])
    assert "ClusterQueue" in kinds
