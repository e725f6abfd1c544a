"""D6: a team may not own the namespaces the platform's controllers run in, nor Kubernetes' or GKE's.
Each refusal names why; a team's own namespace (also one that merely contains 'system') is accepted.

Expected namespaces come from the projects' published manifests, not from the code under test:
the Kueue chart installs into kueue-system and the JobSet chart into jobset-system (their
config/default/kustomization.yaml ``namespace:``); Google's driver installer DaemonSet runs in
kube-system (daemonset-preloaded.yaml); gke-managed-system / gke-gmp-system / gmp-system are where
GKE runs its managed components and Managed Service for Prometheus."""

from __future__ import annotations

import pytest

from gke_accel.model import ConfigError, load_environment_text
from helpers import base_config, to_yaml

TEAM = {"name": "nlp", "google_group": "ml-nlp@acme.example.com", "accelerators": {}}


def _load(namespace: str, name: str = "nlp") -> None:
    data = base_config()
    data["teams"] = [{**TEAM, "name": name, "namespace": namespace}]
    load_environment_text(to_yaml(data))


def _refusal(namespace: str) -> str:
    with pytest.raises(ConfigError) as info:
        _load(namespace)
    return str(info.value)


@pytest.mark.parametrize(
    ("namespace", "why"),
    [
        ("kueue-system", "the Kueue controller"),
        ("jobset-system", "the JobSet controller"),
        ("kube-system", "Kubernetes reserves it for its own objects; the NVIDIA driver installer DaemonSet runs there"),
        ("kube-public", "Kubernetes reserves it"),
        ("kube-anything", "Kubernetes reserves it"),
        ("default", "Kubernetes reserves it"),
        ("gke-managed-system", "GKE reserves gke-* and gmp-*"),
        ("gke-gmp-system", "GKE reserves gke-* and gmp-*"),
        ("gke-system", "GKE reserves gke-* and gmp-*"),
        ("gmp-system", "GKE reserves gke-* and gmp-*"),
        ("gmp-public", "GKE reserves gke-* and gmp-*"),
        ("istio-system", "a GKE add-on"),
        ("config-management-system", "a GKE add-on"),
        # E13: Config Sync's ResourceGroup controller and GKE Identity Service (Policy Controller's
        # "Exclude namespaces" page and the fleet feature's default exemptable namespaces name both)
        ("resource-group-system", "a GKE add-on"),
        ("anthos-identity-service", "a GKE add-on"),
        ("configconnector-operator-system", "a GKE add-on"),
    ],
)
def test_a_reserved_namespace_is_refused_with_the_reason(namespace: str, why: str) -> None:
    message = _refusal(namespace)
    assert "teams[0].namespace" in message and namespace in message
    assert "is not a namespace a team may own" in message and why in message, message


def test_a_team_named_like_a_controller_namespace_is_refused_too() -> None:
    data = base_config()
    data["teams"] = [{**TEAM, "name": "kueue-system"}]
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    assert "teams[0].namespace" in str(info.value) and "the Kueue controller" in str(info.value)


@pytest.mark.parametrize(
    "namespace", ["nlp", "nlp-system", "ml-gke", "team-kueue-system", "kubeflow-nlp", "resource-group", "identity"]
)
def test_a_namespace_of_the_team_s_own_is_accepted(namespace: str) -> None:
    _load(namespace)


def test_an_invalid_namespace_is_refused_as_such() -> None:
    assert "is not a DNS-1123 label" in _refusal("NLP_team")


def test_queues_need_a_kubernetes_version_that_serves_admission_policies_as_v1() -> None:
    data = base_config()
    data["teams"] = [TEAM]
    data["queues"] = {}
    data["platform"] = {"kubernetes_version": "1.30"}
    load_environment_text(to_yaml(data))
    data["platform"] = {"kubernetes_version": "1.29"}
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    assert "platform.kubernetes_version" in str(info.value) and "ValidatingAdmissionPolicy" in str(info.value)
    del data["queues"]
    load_environment_text(to_yaml(data))  # without Kueue there is no policy: 1.29 is fine
