"""A team's ``ingress_from`` (code review R7): which connections reach its pods, decided from the rendered
NetworkPolicies with the Kubernetes NetworkPolicy semantics written out here (kubernetes.io "Network
Policies", networking.k8s.io/v1), not by gke-accel code:

- a pod selected by no Ingress policy accepts everything; a pod selected by one or more accepts a
  connection when any rule of any of them allows it (policies are additive);
- a rule's ``from`` is a list of peers, any of which matches; an empty ``podSelector`` peer (no
  namespaceSelector) means every pod of the policy's namespace; a ``namespaceSelector`` peer every pod
  of the namespaces whose labels match; an ``ipBlock`` peer the addresses in ``cidr`` but not ``except``;
- a rule without ``ports`` covers every port.

Google's ranges (cloud.google.com/load-balancing/docs/firewall-rules): health checks 35.191.0.0/16 and
130.211.0.0/22, GFE proxies "in most cases" the same; Envoy-based load balancers from the proxy-only subnet."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

import pytest

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from helpers import base_config, to_yaml

PROXY_ONLY = "10.129.0.0/23"


@dataclass(frozen=True)
class Source:
    namespace: str | None = None  # a pod in this namespace (labels: kubernetes.io/metadata.name)
    ip: str | None = None  # or an address outside the cluster


def env(ingress_from: dict[str, Any] | None) -> EnvironmentPlan:
    data = base_config()
    serving: dict[str, Any] = {"name": "serving", "google_group": "s@acme.example.com", "accelerators": {"l4": 1}}
    if ingress_from is not None:
        serving["ingress_from"] = ingress_from
    data["teams"] = [
        serving,
        {"name": "nlp", "google_group": "n@acme.example.com", "accelerators": {"v5e": 4}},
        {"name": "research", "google_group": "r@acme.example.com", "namespace": "lab"},
    ]
    return load_environment_text(to_yaml(data))


def _peer_matches(peer: dict[str, Any], policy_ns: str, source: Source) -> bool:
    if "ipBlock" in peer:
        if source.ip is None:
            return False
        addr = ipaddress.ip_address(source.ip)
        block = peer["ipBlock"]
        inside = addr in ipaddress.ip_network(block["cidr"])
        return inside and not any(addr in ipaddress.ip_network(e) for e in block.get("except", []))
    if source.namespace is None:
        return False
    ns_labels = {"kubernetes.io/metadata.name": source.namespace}
    if "namespaceSelector" in peer:
        wanted = peer["namespaceSelector"].get("matchLabels", {})
        ns_ok = all(ns_labels.get(k) == v for k, v in wanted.items())
    else:
        ns_ok = source.namespace == policy_ns
    pod_selector = peer.get("podSelector", {})
    return ns_ok and not pod_selector.get("matchLabels") and not pod_selector.get("matchExpressions")


def allowed(manifests: list[dict[str, Any]], namespace: str, source: Source) -> bool:
    """Is a connection from ``source`` to a pod of ``namespace`` (on any port) allowed?"""
    policies = [m for m in manifests if m["kind"] == "NetworkPolicy" and m["metadata"]["namespace"] == namespace]
    ingress = [p for p in policies if "Ingress" in p["spec"].get("policyTypes", ["Ingress"])]
    if not ingress:
        return True
    for policy in ingress:
        assert policy["spec"]["podSelector"] == {}, "every team policy selects all its pods"
        for rule in policy["spec"].get("ingress", []):
            assert "ports" not in rule
            if any(_peer_matches(p, namespace, source) for p in rule.get("from", [])):
                return True
    return False


FLOWS = [
    # (what, source, to namespace, allowed with serving's ingress_from, allowed without)
    ("health check 35.191.x", Source(ip="35.191.8.4"), "serving", True, False),
    ("GFE proxy 130.211.3.x", Source(ip="130.211.3.250"), "serving", True, False),
    ("just past 130.211.0.0/22", Source(ip="130.211.4.1"), "serving", False, False),
    ("proxy-only subnet", Source(ip="10.129.1.9"), "serving", True, False),
    ("another VPC address", Source(ip="10.130.0.9"), "serving", False, False),
    ("the gateway namespace", Source(namespace="gateway"), "serving", True, False),
    ("another namespace", Source(namespace="default"), "serving", False, False),
    ("team nlp", Source(namespace="nlp"), "serving", True, False),
    ("team research (namespace lab)", Source(namespace="lab"), "serving", False, False),
    ("serving's own pods", Source(namespace="serving"), "serving", True, True),
    ("managed Prometheus", Source(namespace="gmp-system"), "serving", True, True),
    ("serving to nlp (nlp allows no one)", Source(namespace="serving"), "nlp", False, False),
    ("a load balancer to nlp", Source(ip="35.191.8.4"), "nlp", False, False),
]
INGRESS = {"presets": ["google-lb"], "proxy_only_subnets": [PROXY_ONLY], "namespaces": ["gateway"], "teams": ["nlp"]}


@pytest.mark.parametrize(("what", "source", "to", "with_", "without"), FLOWS, ids=[f[0] for f in FLOWS])
def test_flow(what: str, source: Source, to: str, with_: bool, without: bool) -> None:
    assert allowed(platform_manifests(env(INGRESS)), to, source) is with_, what
    assert allowed(platform_manifests(env(None)), to, source) is without, what


def test_no_ingress_from_renders_no_second_policy() -> None:
    names = {m["metadata"]["name"] for m in platform_manifests(env(None)) if m["kind"] == "NetworkPolicy"}
    assert names == {"default-deny-ingress"}


def test_mistakes_name_the_field_and_what_is_valid() -> None:
    with pytest.raises(ConfigError) as err:
        env({"proxy_only_subnets": ["10.129.0.0/33", "8.8.8.0/24"], "namespaces": ["Gate_way"],
             "teams": ["serving", "vision"]})  # fmt: skip
    text = err.value.render()
    for path in ("proxy_only_subnets[0]", "proxy_only_subnets[1]", "namespaces[0]", "ingress_from.teams[0]",
                 "ingress_from.teams[1]"):  # fmt: skip
        assert path in text, path
    assert "nlp" in text


def test_an_unknown_preset_names_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        env({"presets": ["aws-lb"]})
    assert "ingress_from.presets[0]" in err.value.render() and "google-lb" in err.value.render()
