"""Every in-cluster object of an environment, from one function: ``cluster_objects``.

The stack installs each group its own way (the platform's objects as ``kubernetes_*`` resources, the
others as generated Helm charts), ``gke-accel manifests`` writes them all as YAML in apply order and
``gke-accel verify`` compares them all with a live cluster. A new capability with objects in the
cluster adds its group here, and all three see it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gke_accel.model.capacity.compute_class import compute_classes
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.fleet.manifests import fleet_manifests
from gke_accel.model.platform.fences import priority_fence
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.manifests import queue_manifests

Manifest = dict[str, Any]


@dataclass(frozen=True)
class ClusterObjects:
    """An environment's in-cluster objects, grouped by how the stack installs them."""

    platform: tuple[Manifest, ...]  # namespaces, quotas, RBAC, priority classes, driver installer (kubernetes_*)
    fence: tuple[Manifest, ...]  # the Kueue priority admission policy and binding (chart gke-accel-fences)
    compute_classes: tuple[Manifest, ...]  # one per capacity ladder (chart gke-accel-capacity)
    queues: tuple[Manifest, ...]  # Kueue's flavors, queues, priority classes (chart gke-accel-queues)
    # a fleet manager's AdmissionCheck, MultiKueueConfig and MultiKueueClusters (chart gke-accel-fleet)
    fleet: tuple[Manifest, ...] = ()

    def all(self) -> list[Manifest]:
        """Every object, group by group."""
        return [*self.platform, *self.fence, *self.compute_classes, *self.queues, *self.fleet]

    def in_apply_order(self) -> list[Manifest]:
        """Every object in an order ``kubectl apply`` accepts on an empty cluster: cluster-scoped
        objects, namespaces, namespaced objects, then the Kueue objects (they need Kueue installed)."""
        first = sorted([*self.platform, *self.fence, *self.compute_classes], key=apply_stage)
        return first + sorted([*self.fleet, *self.queues], key=apply_stage)


def cluster_objects(plan: EnvironmentPlan) -> ClusterObjects:
    """Every object ``plan`` puts in its cluster (beside the controllers' own charts)."""
    queues = plan.queues
    return ClusterObjects(
        platform=tuple(platform_manifests(plan)),
        fence=tuple(priority_fence(plan)),
        compute_classes=tuple(compute_classes(plan.ladders)),
        queues=tuple(queue_manifests(queues, plan.spec.platform.priority_classes)) if queues is not None else (),
        fleet=tuple(fleet_manifests(plan.fleet)) if plan.fleet is not None else (),
    )


def apply_stage(manifest: Manifest) -> int:
    """0: cluster-scoped objects other than namespaces (priority classes, admission policies);
    1: namespaces; 2: objects inside a namespace; 3 and 4: Kueue objects (cluster-scoped, then
    namespaced), which need Kueue installed. Applying stage by stage works on an empty cluster."""
    meta = manifest["metadata"]
    assert isinstance(meta, dict)
    kueue = 3 if str(manifest["apiVersion"]).startswith("kueue.x-k8s.io/") else 0
    if meta.get("namespace"):
        return kueue + 2 - (1 if kueue else 0)
    return kueue if kueue else (1 if manifest["kind"] == "Namespace" else 0)
