"""The fences around a team: Pod Security admission labels on its namespace and the namespaced
Role its Google group gets. The Role lets a team run workloads (pods, jobs, JobSets, deployments,
their config and secrets) and read, but not change, what fences it in: NetworkPolicies,
ResourceQuotas, LimitRanges, RBAC, service accounts and Kueue objects."""

from __future__ import annotations

from typing import Any

from gke_accel.model.teams.spec import TeamSpec

TEAM_ROLE = "team-member"
PSA_PREFIX = "pod-security.kubernetes.io"
ALL = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]
READ = ["get", "list", "watch"]

# (API group, resources, verbs). No wildcards, no escalate/bind/impersonate.
_RULES: tuple[tuple[str, tuple[str, ...], list[str]], ...] = (
    ("", ("pods", "services", "configmaps", "secrets", "persistentvolumeclaims"), ALL),
    ("", ("pods/log", "pods/status", "events", "endpoints", "serviceaccounts", "resourcequotas", "limitranges"), READ),
    ("", ("pods/exec", "pods/attach", "pods/portforward"), ["get", "create"]),
    ("apps", ("deployments", "statefulsets", "replicasets", "deployments/scale", "statefulsets/scale"), ALL),
    ("batch", ("jobs", "cronjobs"), ALL),
    ("jobset.x-k8s.io", ("jobsets",), ALL),
    ("autoscaling", ("horizontalpodautoscalers",), ALL),
    ("policy", ("poddisruptionbudgets",), ALL),
    ("networking.k8s.io", ("networkpolicies",), READ),
    ("rbac.authorization.k8s.io", ("roles", "rolebindings"), READ),
    ("kueue.x-k8s.io", ("localqueues", "workloads"), READ),
)


def pod_security_labels(team: TeamSpec, kubernetes_version: str) -> dict[str, str]:
    """Enforce the team's level (``restricted`` by default), pinned to the cluster's minor version
    so an upgrade does not change what is admitted; warn and audit at the same level."""
    labels: dict[str, str] = {}
    for mode in ("enforce", "audit", "warn"):
        labels[f"{PSA_PREFIX}/{mode}"] = team.pod_security
        labels[f"{PSA_PREFIX}/{mode}-version"] = f"v{kubernetes_version}"
    return labels


def team_role_rules() -> list[dict[str, Any]]:
    return [
        {"apiGroups": [group], "resources": list(resources), "verbs": list(verbs)} for group, resources, verbs in _RULES
    ]
