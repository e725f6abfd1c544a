"""One connection (code review R1): the kubernetes provider and the Helm provider of a stack reach the
same endpoint the same way, in every shipped environment and in each ``control_plane_access`` mode.

What each mode must send is written here from GKE's pages, not from the constructs:
- ``dns``: GKE's DNS-based endpoint, ``control_plane_endpoints_config.dns_endpoint_config.endpoint``;
  its certificate is publicly trusted, so no CA ("About GKE control plane access": DNS-based endpoint).
- ``ip``: the IP endpoint, the cluster's ``endpoint`` attribute, with the cluster CA
  (``master_auth.cluster_ca_certificate``, base64 in the API).
Both authenticate with ``gke-gcloud-auth-plugin`` (client.authentication.k8s.io/v1beta1), never a
token written to state.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import set_path

CONFIG = Path(__file__).resolve().parents[2] / "config"
SHIPPED = sorted(p.stem for p in CONFIG.glob("*.yaml"))
EXEC = {"api_version": "client.authentication.k8s.io/v1beta1", "command": "gke-gcloud-auth-plugin"}
DNS = "control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint"


def _cluster_address(doc: dict[str, Any]) -> str:
    [name] = doc["resource"]["google_container_cluster"]
    return f"google_container_cluster.{name}"


def connections(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(kubernetes, helm) provider connections, in one shape: the kubernetes provider's ``exec`` is a
    list block, the Helm 3 provider's ``kubernetes.exec`` an object."""
    [k8s] = doc["provider"]["kubernetes"]
    [helm] = doc["provider"]["helm"]
    k8s = {**k8s, "exec": k8s["exec"][0]}
    return k8s, dict(helm["kubernetes"])


def expected(doc: dict[str, Any], mode: str) -> dict[str, Any]:
    cluster = _cluster_address(doc)
    if mode == "dns":
        return {"host": f"https://${{{cluster}.{DNS}}}", "exec": EXEC}
    return {
        "host": f"https://${{{cluster}.endpoint}}",
        "cluster_ca_certificate": f"${{base64decode({cluster}.master_auth[0].cluster_ca_certificate)}}",
        "exec": EXEC,
    }


@pytest.mark.parametrize("env", SHIPPED)
def test_shipped_environments_use_one_connection_on_the_dns_endpoint(shipped: dict[str, Any], env: str) -> None:
    doc = shipped[env]
    k8s, helm = connections(doc)
    assert k8s == helm == expected(doc, "dns")


@pytest.mark.parametrize("env", SHIPPED)
def test_ip_access_uses_one_connection_on_the_ip_endpoint_with_the_ca(
    synth: Callable[[dict[str, Any]], dict[str, Any]], env: str
) -> None:
    data = yaml.safe_load((CONFIG / f"{env}.yaml").read_text())
    data = set_path(data, "cluster.control_plane_access", "ip")
    doc = synth(set_path(data, "cluster.deployer_cidr", "10.8.0.0/24"))  # inside the shipped 10.0.0.0/8
    k8s, helm = connections(doc)
    assert k8s == helm == expected(doc, "ip")
    # the IP endpoint is then closed to the DNS door's outside traffic
    [cluster] = doc["resource"]["google_container_cluster"].values()
    assert cluster["control_plane_endpoints_config"]["dns_endpoint_config"]["allow_external_traffic"] is False
