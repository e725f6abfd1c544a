"""Constructs: thin cdktf constructs that turn validated model objects into Terraform resources.

Importing this package loads the jsii runtime and the provider bindings (seconds, ~1 GB).
"""

from gke_accel.cdk.accelerator_pools import GpuNodePool, TpuSlicePool
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.network import ClusterNetwork
from gke_accel.cdk.node_pool import AcceleratorNodePool
from gke_accel.cdk.node_service_account import NodeServiceAccount

__all__ = ["AcceleratorNodePool", "ClusterNetwork", "GkeCluster", "GpuNodePool", "NodeServiceAccount", "TpuSlicePool"]
