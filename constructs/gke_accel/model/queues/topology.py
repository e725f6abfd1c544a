"""Whole TPU slices by Kueue Topology-Aware Scheduling (TAS): one ``Topology`` whose levels are the node
pool (on GKE one multi-host TPU slice is one node pool) and the host, referenced by the ResourceFlavors
of multi-host TPU slices. A JobSet that asks for its slices at the node-pool level
(``workload new``: ``kueue.x-k8s.io/podset-slice-required-topology`` and ``podset-slice-size`` on each
replicated job's pod template) is admitted only where every slice finds a whole free node pool, so Kueue
never admits a slice that the scheduler cannot place whole (docs/queues.md "Whole slices by topology").

Kueue v0.19.2 facts this relies on (sigs.k8s.io/kueue@v0.19.2):
- ``TopologyAwareScheduling`` is Beta, on by default since 0.14 (pkg/features/kube_features.go).
- A PodSet that requests TAS takes every resource of a resource group from a flavor with a
  ``topologyName``; a flavor without one whose group covers any resource the pods request is refused
  ("Flavor %q does not support TopologyAwareScheduling", pkg/scheduler/flavorassigner/
  tas_flavorassigner.go ``checkPodSetAndFlavorMatchForTAS``). So the TAS flavors share one resource group
  with cpu and memory (``manifests.cluster_queue``). A PodSet that requests no topology is refused by a TAS
  flavor ("supports only TopologyAwareScheduling") unless every flavor of the ClusterQueue is one.
- JobSet PodSets carry the child Job index as the TAS sub-group (pkg/controller/jobs/jobset/
  jobset_controller.go ``PodSets``): with ``podset-slice-size`` = VMs per slice, each child Job's pods
  are one TAS slice, placed in one domain of the slice level.
- TAS places pods on existing nodes only (the cache counts the nodes that match a flavor's labels); with a
  ProvisioningRequest admission check the topology assignment is delayed until the nodes are provisioned
  (``podSetTopologyRequest``: ``DelayedTopologyRequest``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import HOSTNAME_LABEL, NODEPOOL_LABEL
from gke_accel.model.pools.topology import dims

TOPOLOGY_NAME = "tpu-slices"
SLICE_LEVEL = NODEPOOL_LABEL  # GKE: one multi-host TPU slice per node pool
HOST_LEVEL = HOSTNAME_LABEL  # the lowest level: Kueue then pins each pod to its node
LEVELS = (SLICE_LEVEL, HOST_LEVEL)
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"


def slice_vms(pool: NodePoolPlan) -> int:
    """VMs in one TPU slice of ``pool`` (1 for GPU pools and single-host slices)."""
    if pool.kind != "tpu" or not pool.tpu_topology:
        return 1
    return math.prod(dims(pool.tpu_topology) or (1,)) // max(1, pool.chips_per_node)


def multi_host(pools: Sequence[NodePoolPlan]) -> bool:
    """Every pool is a multi-host TPU slice pool."""
    return bool(pools) and all(slice_vms(p) > 1 for p in pools)


def nodes_exist(pool: NodePoolPlan) -> bool:
    """Kueue's TAS can place on the pool: it keeps its nodes (smallest size = largest), or they come through
    a ProvisioningRequest, which TAS waits for. A pool that scales from zero without one never gets nodes:
    Kueue keeps the job suspended (no pending pod for the autoscaler) while TAS finds no node (the TAS KEP's
    non-goal "support Cluster Autoscaler without ProvisioningRequest")."""
    low, high = pool.node_bounds()
    return low == high or pool.consumption == "queued"


def places_by_topology(pools: Sequence[NodePoolPlan]) -> bool:
    """A flavor over these pools references the slice Topology: multi-host slices whose nodes TAS can see."""
    return multi_host(pools) and all(nodes_exist(p) for p in pools)


def topology_manifest(api: str, labels: dict[str, str]) -> dict[str, object]:
    """The one Topology the multi-host TPU flavors reference (cluster-scoped, ``kueue.x-k8s.io/v1beta2``)."""
    return {
        "apiVersion": api,
        "kind": "Topology",
        "metadata": {"name": TOPOLOGY_NAME, "labels": dict(labels)},
        "spec": {"levels": [{"nodeLabel": level} for level in LEVELS]},
    }


def slice_request(vms: int) -> dict[str, str]:
    """The pod-template annotations of one replicated job whose every child Job is one slice of ``vms`` VMs:
    each child Job's pods in one node pool, one pod per host."""
    return {SLICE_REQUIRED: SLICE_LEVEL, SLICE_SIZE: str(vms)}
