"""Reaching the control plane: the same stack creates Kubernetes objects through the cluster's
endpoint, so validation proves the deployer can reach it before anything is built.

- ``control_plane_access: dns`` (default): GKE's DNS-based endpoint with external traffic allowed.
  Every request is authorized by IAM (``container.clusters.connect``, in ``roles/container.admin``)
  before Kubernetes RBAC, from any network that reaches Google APIs (a laptop, a hosted CI runner),
  while the IP endpoint stays limited to ``master_authorized_networks``.
- ``control_plane_access: ip``: Terraform uses the IP endpoint from ``deployer_cidr``, which must lie
  inside one of ``master_authorized_networks`` (and be a private range when the endpoint is private).
"""

from __future__ import annotations

import ipaddress

from gke_accel.model.cluster.spec import ClusterSpec
from gke_accel.model.core.errors import IssueCollector


def _networks(spec: ClusterSpec) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    out = []
    for entry in spec.master_authorized_networks:
        try:
            out.append(ipaddress.ip_network(entry.cidr, strict=True))
        except ValueError:
            continue  # reported by the network rules
    return out


def check_control_plane_access(spec: ClusterSpec, issues: IssueCollector) -> None:
    path = "cluster.deployer_cidr"
    if spec.control_plane_access == "dns":
        if spec.deployer_cidr is not None:
            issues.bad(
                path,
                spec.deployer_cidr,
                "is only used with control_plane_access: ip (the DNS endpoint is authorized by IAM)",
                "leave it out, or control_plane_access: ip",
            )
        return
    if spec.deployer_cidr is None:
        issues.bad(
            path,
            None,
            "is required with control_plane_access: ip (where Terraform runs from)",
            "the CIDR of the deploying network, inside master_authorized_networks; or control_plane_access: dns",
        )
        return
    try:
        deployer = ipaddress.ip_network(spec.deployer_cidr, strict=True)
    except ValueError:
        issues.bad(path, spec.deployer_cidr, "is not a valid CIDR range", "e.g. 10.8.0.0/24")
        return
    authorized = [n for n in _networks(spec) if n.version == deployer.version and deployer.subnet_of(n)]  # type: ignore[arg-type]
    if not authorized:
        listed = ", ".join(n.cidr for n in spec.master_authorized_networks) or "none"
        issues.bad(
            path,
            spec.deployer_cidr,
            f"is not inside cluster.master_authorized_networks ({listed}): Terraform could not reach the "
            "control plane to create the Kubernetes objects",
            "a range inside one of them, or control_plane_access: dns",
        )
    elif spec.private_endpoint and not deployer.is_private:
        issues.bad(
            path,
            spec.deployer_cidr,
            "is a public range but the control plane has only a private endpoint (private_endpoint: true)",
            "a private range that reaches the cluster's VPC, or control_plane_access: dns",
        )
