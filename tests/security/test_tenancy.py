"""Team fences in the manifests: Pod Security admission labels, and a Role that runs workloads but
cannot change the team's own fences."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from helpers import base_config, set_path, to_yaml

FENCES = [
    ("networking.k8s.io", "networkpolicies"),
    ("", "resourcequotas"),
    ("", "limitranges"),
    ("", "serviceaccounts"),
    ("", "namespaces"),
    ("rbac.authorization.k8s.io", "roles"),
    ("rbac.authorization.k8s.io", "rolebindings"),
    ("kueue.x-k8s.io", "localqueues"),
    ("kueue.x-k8s.io", "workloads"),
]
WORKLOADS = [("", "pods"), ("batch", "jobs"), ("jobset.x-k8s.io", "jobsets"), ("apps", "deployments"), ("", "secrets")]
WRITE = ("create", "update", "patch", "delete", "deletecollection")


def _objects(**team: Any) -> list[dict[str, Any]]:
    data = set_path(base_config(), "teams", [{"name": "nlp", "google_group": "nlp@acme.example.com", **team}])
    return platform_manifests(load_environment_text(to_yaml(data)))


def _kind(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"].get("namespace", "nlp") == "nlp"]
    return found


def _allows(role: dict[str, Any], group: str, resource: str, verb: str) -> bool:
    """What the RBAC authorizer decides for a namespaced request (no aggregation, no wildcards)."""
    return any(
        group in rule["apiGroups"] and resource in rule["resources"] and verb in rule["verbs"] for rule in role["rules"]
    )


def test_team_namespace_enforces_restricted_pod_security_by_default_pinned_to_the_cluster_version() -> None:
    labels = _kind(_objects(), "Namespace")["metadata"]["labels"]
    for mode in ("enforce", "audit", "warn"):
        assert labels[f"pod-security.kubernetes.io/{mode}"] == "restricted"
        assert labels[f"pod-security.kubernetes.io/{mode}-version"] == "v1.33"


def test_a_team_may_choose_baseline() -> None:
    labels = _kind(_objects(pod_security="baseline"), "Namespace")["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"


def test_the_team_group_is_bound_to_the_team_role_not_to_edit() -> None:
    objects = _objects()
    binding = _kind(objects, "RoleBinding")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "team-member"}
    assert binding["subjects"][0]["name"] == "nlp@acme.example.com"
    assert _kind(objects, "Role")["metadata"]["name"] == "team-member"
    assert not any(o.get("roleRef", {}).get("name") in ("edit", "admin") for o in objects)


@pytest.mark.parametrize(("group", "resource"), FENCES)
@pytest.mark.parametrize("verb", WRITE)
def test_a_team_member_cannot_change_its_fences(group: str, resource: str, verb: str) -> None:
    assert not _allows(_kind(_objects(), "Role"), group, resource, verb)


@pytest.mark.parametrize(("group", "resource"), WORKLOADS)
def test_a_team_member_can_run_workloads(group: str, resource: str) -> None:
    role = _kind(_objects(), "Role")
    assert all(_allows(role, group, resource, verb) for verb in ("create", "delete", "get", "list", "watch"))


def test_the_role_has_no_wildcards_and_no_escalation_verbs() -> None:
    for rule in _kind(_objects(), "Role")["rules"]:
        assert "*" not in rule["apiGroups"] + rule["resources"] + rule["verbs"]
        assert not {"escalate", "bind", "impersonate"} & set(rule["verbs"])


def test_the_driver_installer_keeps_its_privileges_in_kube_system_with_recorded_skips() -> None:
    data = set_path(base_config(), "gpu_pools[0].driver_mode", "daemonset")
    (installer,) = [o for o in platform_manifests(load_environment_text(to_yaml(data))) if o["kind"] == "DaemonSet"]
    assert installer["metadata"]["namespace"] == "kube-system"
    pod = installer["spec"]["template"]["spec"]
    assert pod["initContainers"][0]["securityContext"] == {"privileged": True}
    assert pod["automountServiceAccountToken"] is False
    skips = installer["metadata"]["annotations"]
    assert any(v.startswith("CKV_K8S_16=") for v in skips.values())
    assert all(k.startswith("checkov.io/skip") and "=" in v and "\n" not in v for k, v in skips.items())
