"""Kueue's and JobSet's controller Deployments as the Deployment and ReplicaSet controllers leave them
(ready, one pod on a system-pool node), for ``verify`` on the e2e tier, where the real controllers run
out of cluster (kueue_controller.py) and no Deployment controller runs."""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan
from gke_accel.twin.cluster import LocalCluster
from gke_accel.workloads.verify.controllers import controller_deployments


def fake_controllers(c: LocalCluster, plan: EnvironmentPlan, node: str) -> None:
    """Ready controller Deployments with their pod bound to ``node`` (a system-pool node)."""
    for ns, name in controller_deployments(plan):
        labels = {"control-plane": "controller-manager", "app": name}
        pod_spec = {"containers": [{"name": "manager", "image": "registry.k8s.io/pause:3.10"}]}
        template = {"metadata": {"labels": labels}, "spec": pod_spec}
        c.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}])
        c.apply([
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
             "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template}},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": f"{name}-5d8f7c9b6", "namespace": ns},
             "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template}},
        ])  # fmt: skip
        rs = c.get("replicaset", f"{name}-5d8f7c9b6", ns)
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs["metadata"]["name"],
                 "uid": rs["metadata"]["uid"], "controller": True}  # fmt: skip
        c.apply([{"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": f"{name}-5d8f7c9b6-x2x7q", "namespace": ns, "labels": labels,
                               "ownerReferences": [owner]},
                  "spec": {**pod_spec, "nodeName": node}}])  # fmt: skip
        status = '{"status":{"replicas":1,"readyReplicas":1,"availableReplicas":1}}'
        c.kubectl("patch", "deployment", name, "-n", ns, "--subresource=status", "--type=merge", "-p", status)
