"""A team's Kubernetes objects, as plain manifests (API field names), rendered from its ``TeamPlan``:
the Namespace, its ResourceQuotas, LimitRange, ServiceAccount, Role and RoleBinding, NetworkPolicy (and
a second one for its ``ingress_from``: ingress.py), and its Kueue LocalQueue."""

from __future__ import annotations

from typing import Any

from gke_accel.model.teams.ingress import POLICY_NAME as INGRESS_POLICY
from gke_accel.model.teams.ingress import ingress_policy
from gke_accel.model.teams.plan import TeamPlan
from gke_accel.model.teams.queue import KUEUE_API
from gke_accel.model.teams.tenancy import TEAM_ROLE

Manifest = dict[str, Any]
MANAGED_BY = {"app.kubernetes.io/managed-by": "gke-accel"}


def meta(name: str, namespace: str | None = None, **labels: str) -> dict[str, Any]:
    """``metadata`` of an object gke-accel manages."""
    out: dict[str, Any] = {"name": name, "labels": {**MANAGED_BY, **labels}}
    if namespace:
        out["namespace"] = namespace
    return out


def _priority_fence_quota(team: TeamPlan) -> Manifest:
    """Pods of any class the team may not use get a quota of zero pods, so they are rejected."""
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": meta("priority-classes", team.namespace),
        "spec": {
            "hard": {"pods": "0"},
            "scopeSelector": {
                "matchExpressions": [
                    {"scopeName": "PriorityClass", "operator": "NotIn", "values": list(team.fenced_classes)}
                ]
            },
        },
    }


INFERENCE_QUOTA = "compute-inference"


def _quotas(team: TeamPlan) -> list[Manifest]:
    """The ResourceQuota ``compute`` and, when the team's inference pods are counted apart
    (``TeamPlan.inference_quota``), ``compute-inference``: both hold the team's ceilings, ``compute``
    for pods of every class but inference (no class, unknown ones included), ``compute-inference``
    for inference pods only. Kueue admits up to the ceiling in all; the quotas bound what bypasses it."""
    if not team.inference_quota:
        return [{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta("compute", team.namespace),
                 "spec": {"hard": team.quota}}]  # fmt: skip

    def scoped(name: str, operator: str) -> Manifest:
        scope = {"scopeName": "PriorityClass", "operator": operator, "values": [team.inference_class]}
        return {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": meta(name, team.namespace),
            "spec": {"hard": dict(team.quota), "scopeSelector": {"matchExpressions": [scope]}},
        }

    return [scoped("compute", "NotIn"), scoped(INFERENCE_QUOTA, "In")]


def _network_policy(ns: str) -> Manifest:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": meta("default-deny-ingress", ns),
        "spec": {
            "podSelector": {},
            "policyTypes": ["Ingress"],
            "ingress": [
                {
                    "from": [
                        {"podSelector": {}},  # pods of the same namespace
                        {
                            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gmp-system"}}
                        },  # metrics
                    ]
                }
            ],
        },
    }


def team_manifests(team: TeamPlan) -> list[Manifest]:
    """The team's platform objects (its LocalQueue is ``local_queue_manifest``: it needs Kueue)."""
    ns = team.namespace
    objects: list[Manifest] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(ns, **team.labels, **team.pod_security_labels)},
        *_quotas(team),
    ]
    if team.fenced_classes:
        objects.append(_priority_fence_quota(team))
    rbac = "rbac.authorization.k8s.io"
    objects += [
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": meta("defaults", ns),
            "spec": {"limits": [team.limit_range]},
        },
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                **meta(team.service_account, ns),
                "annotations": {"iam.gke.io/gcp-service-account": team.gcp_service_account},
            },
        },
        {"apiVersion": f"{rbac}/v1", "kind": "Role", "metadata": meta(TEAM_ROLE, ns), "rules": team.role_rules},
        {
            "apiVersion": f"{rbac}/v1",
            "kind": "RoleBinding",
            "metadata": meta(TEAM_ROLE, ns),
            "roleRef": {"apiGroup": rbac, "kind": "Role", "name": TEAM_ROLE},
            "subjects": [{"kind": "Group", "apiGroup": rbac, "name": team.google_group}],
        },
        _network_policy(ns),
    ]
    if team.ingress_from:
        objects.append(ingress_policy(ns, team.ingress_from, meta(INGRESS_POLICY, ns)))
    return objects


def local_queue_manifest(namespace: str, name: str, cluster_queue: str) -> Manifest:
    """A team's LocalQueue: the queue its jobs name, pointing at its ClusterQueue."""
    return {
        "apiVersion": KUEUE_API,
        "kind": "LocalQueue",
        "metadata": {"name": name, "labels": dict(MANAGED_BY), "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue},
    }


def team_queue_manifests(team: TeamPlan) -> list[Manifest]:
    """The team's Kueue objects: its LocalQueues (none without queues)."""
    if team.queue is None:
        return []
    return [local_queue_manifest(team.namespace, name, team.queue.cluster_queue) for name in team.queue.local_queues]
