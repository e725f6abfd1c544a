"""The one place that imports provider bindings; each resource from its own submodule, because
loading the package root of a provider costs many seconds and hundreds of megabytes."""

from cdktf_cdktf_provider_google.compute_firewall import ComputeFirewall, ComputeFirewallDeny, ComputeFirewallLogConfig
from cdktf_cdktf_provider_google.compute_network import ComputeNetwork
from cdktf_cdktf_provider_google.compute_resource_policy import ComputeResourcePolicy
from cdktf_cdktf_provider_google.compute_router import ComputeRouter
from cdktf_cdktf_provider_google.compute_router_nat import ComputeRouterNat, ComputeRouterNatLogConfig
from cdktf_cdktf_provider_google.compute_subnetwork import (
    ComputeSubnetwork,
    ComputeSubnetworkLogConfig,
    ComputeSubnetworkSecondaryIpRange,
)
from cdktf_cdktf_provider_google.container_cluster import ContainerCluster
from cdktf_cdktf_provider_google.container_node_pool import ContainerNodePool
from cdktf_cdktf_provider_google.project_iam_member import ProjectIamMember
from cdktf_cdktf_provider_google.provider import GoogleProvider
from cdktf_cdktf_provider_google.service_account import ServiceAccount

__all__ = [
    "ComputeFirewall",
    "ComputeFirewallDeny",
    "ComputeFirewallLogConfig",
    "ComputeNetwork",
    "ComputeResourcePolicy",
    "ComputeRouter",
    "ComputeRouterNat",
    "ComputeRouterNatLogConfig",
    "ComputeSubnetwork",
    "ComputeSubnetworkLogConfig",
    "ComputeSubnetworkSecondaryIpRange",
    "ContainerCluster",
    "ContainerNodePool",
    "GoogleProvider",
    "ProjectIamMember",
    "ServiceAccount",
]

# Struct namespaces for the two largest resources (their nested blocks are many).
from cdktf_cdktf_provider_google import container_cluster as cluster_structs
from cdktf_cdktf_provider_google import container_node_pool as pool_structs

__all__ += ["cluster_structs", "pool_structs"]
