"""Constructs: thin cdktf constructs that turn validated model objects into Terraform resources.

Importing this package loads the jsii runtime and the provider bindings (seconds, ~1 GB).
``App``, ``TerraformStack`` and ``GoogleProvider`` are re-exported from the framework gke-accel runs
on (cdktn or cdktf, see ``gke_accel.frameworks``), so a stack composing these constructs never mixes
the two.

An uncaught ``ConfigError`` (a mistake in the props) ends the program with its message alone (every
mistake, no traceback) and exit status 2, as ``gke-accel validate`` does: see ``gke_accel.cdk.errors``.
"""

import os

# jsii's Node runtime prints a large end-of-life banner on every run under Node 20; it reads this
# variable (a list of major versions to stay quiet about) when it starts, which is on first import.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")

# isort: split

from gke_accel.cdk._framework import App, TerraformStack
from gke_accel.cdk._providers import GoogleProvider
from gke_accel.cdk.accelerator_pools import GpuNodePool, TpuSlicePool
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.errors import install_config_error_hook
from gke_accel.cdk.network import ClusterNetwork
from gke_accel.cdk.node_pool import AcceleratorNodePool
from gke_accel.cdk.node_service_account import NodeServiceAccount
from gke_accel.cdk.teams import Teams

install_config_error_hook()

__all__ = [
    "AcceleratorNodePool",
    "App",
    "ClusterNetwork",
    "GkeCluster",
    "GoogleProvider",
    "GpuNodePool",
    "NodeServiceAccount",
    "Teams",
    "TerraformStack",
    "TpuSlicePool",
]
