"""The priority fence's objects (model.platform.fences) for the shipped environments: which classes
each team namespace may use comes from config/staging.yaml as written there (research:
training, batch; serving: inference, training; nlp: every class). The policy's decisions are
proven on the real API server in tests/e2e/test_priority_fence.py."""

from __future__ import annotations

from pathlib import Path

from gke_accel.model import load_environment
from gke_accel.model.platform.fences import allowed_classes, priority_fence
from helpers import QUOTA_ONLY_CONFIG

CONFIG = Path(__file__).resolve().parents[2] / "config"


def test_staging_binds_the_policy_to_exactly_its_team_namespaces() -> None:
    policy, binding = priority_fence(load_environment(CONFIG / "staging.yaml"))
    assert policy["apiVersion"] == binding["apiVersion"] == "admissionregistration.k8s.io/v1"
    assert binding["spec"]["policyName"] == policy["metadata"]["name"]
    assert binding["spec"]["validationActions"] == ["Deny"]
    [expr] = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    assert expr == {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["nlp", "research", "serving"]}
    assert policy["spec"]["failurePolicy"] == "Fail"
    resources = {(g, r) for rule in policy["spec"]["matchConstraints"]["resourceRules"]
                 for g in rule["apiGroups"] for r in rule["resources"]}  # fmt: skip
    # everything the team-member Role lets a team create that is or holds a pod template
    assert {("", "pods"), ("batch", "jobs"), ("batch", "cronjobs"), ("apps", "deployments"),
            ("apps", "statefulsets"), ("apps", "replicasets"), ("jobset.x-k8s.io", "jobsets")} == resources  # fmt: skip


def test_each_team_namespace_gets_its_configured_classes() -> None:
    table = allowed_classes(load_environment(CONFIG / "staging.yaml"))
    assert table == {
        "nlp": ["inference", "training", "batch"],
        "research": ["training", "batch"],
        "serving": ["inference", "training"],
    }
    [allowed] = [v for v in priority_fence(load_environment(CONFIG / "staging.yaml"))[0]["spec"]["variables"]
                 if v["name"] == "allowed"]  # fmt: skip
    assert "'research': ['training', 'batch']" in allowed["expression"]


def test_no_fence_without_kueue() -> None:
    assert priority_fence(load_environment(QUOTA_ONLY_CONFIG)) == []
    assert priority_fence(load_environment(CONFIG / "prod.yaml")) == []
