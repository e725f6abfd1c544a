"""ClusterNetwork: a VPC with one subnet (pods and services as secondary ranges), a router and Cloud
NAT so private nodes reach the internet for images, without public IPs."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import (
    ComputeFirewall,
    ComputeFirewallDeny,
    ComputeFirewallLogConfig,
    ComputeNetwork,
    ComputeRouter,
    ComputeRouterNat,
    ComputeRouterNatLogConfig,
    ComputeSubnetwork,
    ComputeSubnetworkLogConfig,
    ComputeSubnetworkSecondaryIpRange,
)
from gke_accel.model.cluster.spec import NetworkSpec


class ClusterNetwork(Construct):
    """The network a cluster runs in; created here, or the names of an existing one."""

    def __init__(self, scope: Construct, id: str, *, project: str, region: str, name: str, spec: NetworkSpec) -> None:
        super().__init__(scope, id)
        self.pods_range_name = spec.pods_range_name
        self.services_range_name = spec.services_range_name
        if not spec.create:
            self.network: str = spec.network or ""
            self.subnetwork: str = spec.subnetwork or ""
            return
        vpc = ComputeNetwork(
            self, "vpc", project=project, name=f"{name}-vpc", auto_create_subnetworks=False, routing_mode="REGIONAL"
        )
        subnet = ComputeSubnetwork(
            self,
            "subnet",
            project=project,
            region=region,
            name=f"{name}-nodes",
            network=vpc.id,
            ip_cidr_range=spec.subnet_cidr,
            private_ip_google_access=True,
            secondary_ip_range=[
                ComputeSubnetworkSecondaryIpRange(range_name=spec.pods_range_name, ip_cidr_range=spec.pods_cidr),
                ComputeSubnetworkSecondaryIpRange(
                    range_name=spec.services_range_name, ip_cidr_range=spec.services_cidr
                ),
            ],
            log_config=ComputeSubnetworkLogConfig(
                aggregation_interval="INTERVAL_10_MIN", flow_sampling=0.5, metadata="INCLUDE_ALL_METADATA"
            ),
        )
        router = ComputeRouter(self, "router", project=project, region=region, name=f"{name}-router", network=vpc.id)
        ComputeRouterNat(
            self,
            "nat",
            project=project,
            region=region,
            name=f"{name}-nat",
            router=router.name,
            nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            log_config=ComputeRouterNatLogConfig(enable=True, filter="ERRORS_ONLY"),
        )
        # An explicit lowest-priority deny for ingress: GKE's own rules (priority 1000) still apply.
        ComputeFirewall(
            self,
            "deny-ingress",
            project=project,
            name=f"{name}-deny-ingress",
            network=vpc.id,
            direction="INGRESS",
            priority=65534,
            source_ranges=["0.0.0.0/0"],
            deny=[ComputeFirewallDeny(protocol="all")],
            log_config=ComputeFirewallLogConfig(metadata="INCLUDE_ALL_METADATA"),
        )
        self.network = vpc.id
        self.subnetwork = subnet.id
