"""The PodDisruptionBudget of a generated Deployment: a rolling node upgrade or drain (kubectl drain,
GKE's surge upgrade, cluster autoscaler) evicts through the eviction API, which refuses an eviction that
would leave fewer than ``replicas - 1`` ready pods (Kubernetes "Specifying a Disruption Budget").

``maxUnavailable: 1`` rather than ``minAvailable``: with one replica the node can still be drained (a
budget that allows no disruption blocks GKE's upgrade until its PDB timeout, then the pod is evicted)."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def pod_disruption_budget(*, name: str, namespace: str, labels: dict[str, str], selector: dict[str, str]) -> Obj:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": dict(selector)}},
    }
