"""ClusterConnection: the one way every in-cluster provider (kubernetes, helm) reaches a GKE cluster's
API server, so the two can never point at different endpoints (code review R1: the Helm provider
used the IP endpoint while the kubernetes provider used the DNS endpoint, and no shipped environment
could install Kueue or JobSet from a laptop or hosted CI).

``cluster.control_plane_access`` (model/cluster/access.py, docs/deploy.md) decides the endpoint:
- ``dns``: GKE's DNS-based endpoint, ``https://<dns endpoint>``. Its certificate is publicly trusted,
  so no CA is passed; every request is authorized by IAM, then RBAC.
- ``ip``: the IP endpoint, ``https://<endpoint>`` (the private one with ``private_endpoint: true``),
  with the cluster's CA certificate.

Credentials come from the ``gke-gcloud-auth-plugin`` exec plugin on every plan and apply: a
short-lived token that is not an attribute of any resource or data source, so Terraform never
writes it to state (docs/security.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gke_accel.cdk._framework import Construct, Fn
from gke_accel.cdk._helm import HelmProvider, HelmProviderKubernetes, HelmProviderKubernetesExec
from gke_accel.cdk._kubernetes import KubernetesProvider, KubernetesProviderExec

EXEC_PLUGIN = "gke-gcloud-auth-plugin"
EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


@dataclass(frozen=True)
class ClusterConnection:
    """Where and how to reach the cluster's API server: ``host`` (an https URL), the PEM CA
    certificate or ``None`` (the DNS endpoint), and the exec credential plugin."""

    host: str
    cluster_ca_certificate: str | None
    exec_command: str = EXEC_PLUGIN
    exec_api_version: str = EXEC_API_VERSION

    @classmethod
    def of_cluster(cls, resource: Any, control_plane_access: str) -> ClusterConnection:
        """The connection to a ``google_container_cluster`` for a ``control_plane_access`` mode."""
        if control_plane_access == "dns":
            dns = resource.control_plane_endpoints_config.dns_endpoint_config.endpoint
            return cls(host=f"https://{dns}", cluster_ca_certificate=None)
        if control_plane_access == "ip":
            ca = Fn.base64decode(resource.master_auth.cluster_ca_certificate)
            return cls(host=f"https://{resource.endpoint}", cluster_ca_certificate=ca)
        raise ValueError(f"control_plane_access {control_plane_access!r}: valid are 'dns', 'ip'")

    def kubernetes_provider(self, scope: Construct, id: str) -> KubernetesProvider:
        """The hashicorp/kubernetes provider on this connection."""
        return KubernetesProvider(
            scope,
            id,
            host=self.host,
            cluster_ca_certificate=self.cluster_ca_certificate,
            exec=[KubernetesProviderExec(api_version=self.exec_api_version, command=self.exec_command)],
        )

    def helm_provider(self, scope: Construct, id: str) -> HelmProvider:
        """The hashicorp/helm provider (3.x: ``kubernetes`` is an object attribute) on this connection."""
        return HelmProvider(
            scope,
            id,
            kubernetes=HelmProviderKubernetes(
                host=self.host,
                cluster_ca_certificate=self.cluster_ca_certificate,
                exec=HelmProviderKubernetesExec(api_version=self.exec_api_version, command=self.exec_command),
            ),
        )
