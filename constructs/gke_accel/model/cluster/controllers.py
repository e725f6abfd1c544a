"""Where in-cluster controllers run: Kueue, JobSet, cert-manager, the driver installer's helpers,
anything a platform team installs.

Every accelerator pool is tainted, and so is the system pool
(``components.gke.io/gke-managed-components=true:NoSchedule``), so that team workloads never take
system capacity by accident. Controllers we install carry the placement below: a nodeSelector for
the system pool (its ``cloud.google.com/gke-nodepool`` label) and a
toleration of its taint. The pool autoscales (``cluster.system_pool``, default e2-standard-4, 1-3
nodes), so controllers add nodes rather than stay Pending. Everything comes from the same
NodePoolPlan the system pool is rendered from (``node_shape``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gke_accel.model.cluster.plan import ClusterPlan
from gke_accel.model.pools.node_shape import NODEPOOL_LABEL, node_shape


@dataclass(frozen=True)
class ControllerPlacement:
    node_selector: dict[str, str]
    tolerations: tuple[dict[str, str], ...]

    def pod_spec(self) -> dict[str, Any]:
        """The fields to merge into a controller's pod spec (Kubernetes spelling)."""
        return {"nodeSelector": dict(self.node_selector), "tolerations": [dict(t) for t in self.tolerations]}


def controller_placement(cluster: ClusterPlan) -> ControllerPlacement:
    """nodeSelector + tolerations that put a controller on the system pool."""
    shape = node_shape(cluster.system_pool)
    return ControllerPlacement(
        node_selector={NODEPOOL_LABEL: shape.labels[NODEPOOL_LABEL]}, tolerations=tuple(shape.tolerations())
    )
