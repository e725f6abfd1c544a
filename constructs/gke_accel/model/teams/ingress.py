"""A team's ``ingress_from``: the NetworkPolicy that lets load balancers, gateways and other teams reach
its pods (code review R7). The team's default policy (``manifests.py``) admits only its own namespace and
managed Prometheus; Kubernetes NetworkPolicies are additive (a connection is allowed when any policy
selecting the pod allows it), so this second policy only widens what ``ingress_from`` names.

Google's ranges, from "Firewall rules" (cloud.google.com/load-balancing/docs/firewall-rules, read
2026-12-04): health check probes come from 35.191.0.0/16 and 130.211.0.0/22, and GFE-based load balancers'
proxies "in most cases" from the same ranges; Envoy-based load balancers send traffic from the region's
proxy-only subnet, a range of the user's VPC, so it is given as a CIDR, not a preset. With container-native
load balancing (NEGs) those packets reach pod IPs, where GKE Dataplane V2 enforces NetworkPolicy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.names import DNS_LABEL
from gke_accel.model.teams.spec import IngressFromSpec, TeamSpec

NAMESPACE_LABEL = "kubernetes.io/metadata.name"
PRESETS: dict[str, tuple[str, ...]] = {
    "google-lb": ("35.191.0.0/16", "130.211.0.0/22"),  # health checks and GFE proxies (Firewall rules page)
}
POLICY_NAME = "allow-ingress-from"


def check_ingress_from(teams: Sequence[TeamSpec], namespaces: Mapping[str, str], issues: IssueCollector) -> None:
    """Every mistake in the teams' ``ingress_from`` (``namespaces``: team name -> its namespace)."""
    for i, team in enumerate(teams):
        spec, path = team.ingress_from, f"teams[{i}].ingress_from"
        for j, cidr in enumerate(spec.proxy_only_subnets):
            try:
                net = ipaddress.ip_network(cidr, strict=True)
            except ValueError:
                issues.bad(f"{path}.proxy_only_subnets[{j}]", cidr, "is not a CIDR range", "e.g. 10.129.0.0/23")
                continue
            if not net.is_private:
                issues.bad(f"{path}.proxy_only_subnets[{j}]", cidr, "is not a private range (a proxy-only subnet "
                           "is a range of your VPC)", "e.g. 10.129.0.0/23")  # fmt: skip
        for j, ns in enumerate(spec.namespaces):
            if not DNS_LABEL.fullmatch(ns):
                issues.bad(f"{path}.namespaces[{j}]", ns, "is not a namespace name", "lowercase letters, digits, '-'")
        others = sorted(n for n in namespaces if n != team.name)
        for j, name in enumerate(spec.teams):
            if name not in others:
                issues.bad(f"{path}.teams[{j}]", name, "is not another team of this environment", others or "none")


def ingress_peers(spec: IngressFromSpec, namespaces: Mapping[str, str]) -> tuple[dict[str, Any], ...]:
    """The NetworkPolicy ``from`` peers of ``spec`` (``namespaces``: team name -> its namespace)."""
    cidrs = [c for p in spec.presets for c in PRESETS[p]] + list(spec.proxy_only_subnets)
    names = list(spec.namespaces) + [namespaces[t] for t in spec.teams if t in namespaces]
    peers: list[dict[str, Any]] = [{"ipBlock": {"cidr": c}} for c in dict.fromkeys(cidrs)]
    peers += [{"namespaceSelector": {"matchLabels": {NAMESPACE_LABEL: n}}} for n in dict.fromkeys(names)]
    return tuple(peers)


def ingress_policy(namespace: str, peers: Sequence[Mapping[str, Any]], metadata: dict[str, Any]) -> dict[str, Any]:
    """The team's second NetworkPolicy: every pod of ``namespace`` reachable from ``peers`` (all ports)."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": metadata,
        "spec": {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{"from": [dict(p) for p in peers]}]},
    }
