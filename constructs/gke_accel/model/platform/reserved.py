"""Namespaces no team may own: where the platform's own controllers run, and Kubernetes' and GKE's.

A team's namespace gets the team's Role (create pods, read secrets), quota and NetworkPolicy. In a
controller's namespace that would let team members run pods as the controller's service account
and read its secrets, and the team's default-deny policy would cut the controller's webhooks off.
"""

from __future__ import annotations

from collections.abc import Mapping

from gke_accel.catalog import Catalog

# Kubernetes' own: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/
# ("default", "kube-node-lease", "kube-public", "kube-system"; avoid the kube- prefix).
KUBERNETES = ("default",)
KUBERNETES_PREFIXES = ("kube-",)
# GKE's: managed components (gke-managed-system, gke-managed-cim, gke-gmp-system, ...) and Google Cloud
# Managed Service for Prometheus (gmp-system, gmp-public); add-ons GKE or its fleet features install
# (Cloud Service Mesh, Config Sync and its ResourceGroup controller, Policy Controller, Config Connector
# and its operator, GKE Identity Service): the system namespaces Policy Controller's "Exclude namespaces"
# page (cloud.google.com/kubernetes-engine/enterprise/policy-controller/docs/how-to/exclude-namespaces)
# and the fleet Policy Controller's default exemptable namespaces list, and Config Sync's `nomos
# bugreport` folders (resource-group-system).
GKE_PREFIXES = ("gke-", "gmp-")
GKE_ADD_ONS = ("istio-system", "asm-system", "config-management-system", "config-management-monitoring",
               "gatekeeper-system", "cnrm-system", "configconnector-operator-system", "resource-group-system",
               "anthos-identity-service")  # fmt: skip
RESERVED_HELP = "a namespace of the team's own: not default, kube-*, gke-*, gmp-*, nor a platform controller's"


def platform_namespaces(catalog: Catalog) -> dict[str, str]:
    """Namespace -> what the platform itself installs there (the driver installer); the other
    capabilities' controllers are theirs to name (``queues/install.py``), and the environment
    root hands all of them to the rules (``environment/registry.py``)."""
    return {catalog.driver_installer.namespace: "the NVIDIA driver installer DaemonSet runs there"}


def reserved_reason(namespace: str, controllers: Mapping[str, str]) -> str | None:
    """Why ``namespace`` may not be a team's, or None when it may. ``controllers``: namespace ->
    which controller this package installs there."""
    reasons = []
    if namespace in KUBERNETES or namespace.startswith(KUBERNETES_PREFIXES):
        reasons.append("Kubernetes reserves it for its own objects")
    if namespace.startswith(GKE_PREFIXES):
        reasons.append("GKE reserves gke-* and gmp-* for its managed components (controllers, managed Prometheus)")
    if namespace in GKE_ADD_ONS:
        reasons.append("a GKE add-on (service mesh, Config Sync, Policy Controller, Config Connector, Identity "
                       "Service) runs there")  # fmt: skip
    ours = controllers.get(namespace)
    if ours:
        reasons.append(ours)
    return "; ".join(reasons) or None
