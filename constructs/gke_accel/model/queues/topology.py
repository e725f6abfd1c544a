"""Whole TPU slices by topology: the Kueue ``Topology`` of the environment's multi-host TPU pools and
which flavors use it (Kueue Topology Aware Scheduling, TAS).

A multi-host TPU slice is one GKE node pool (model/pools/tpu_pool.py: one atomic pool per slice), so
the Topology's levels are the node pool (``cloud.google.com/gke-nodepool``, the slice) and the host
(``kubernetes.io/hostname``, Kueue's required lowest level for per-pod assignment). A flavor that
names the Topology (``spec.topologyName``) lets Kueue admit a multi-host job only where whole slices
are free: ``workload new`` asks for each child Job of a JobSet to sit in one node pool
(``kueue.x-k8s.io/podset-slice-required-topology`` at the node-pool level, ``podset-slice-size`` =
the slice's VMs), and Kueue assigns every pod a host before it ungates the pods.

TAS counts the nodes that exist. Kueue does not drive the cluster autoscaler for TAS except through
ProvisioningRequests (KEP-2724 "Topology Aware Scheduling", non-goal "support Cluster Autoscaler without
ProvisioningRequest"), so a pool that may scale to zero would leave its jobs admitted nowhere. A flavor
therefore uses the Topology only when every pool behind it keeps its nodes (``min_slices`` =
``max_slices``); other flavors keep quota-only admission (docs/queues.md "Whole slices by topology").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import NODEPOOL_LABEL

TOPOLOGY_NAME = "tpu-slices"
HOSTNAME_LABEL = "kubernetes.io/hostname"  # Kubernetes well-known label; Kueue's lowest TAS level
LEVELS = (NODEPOOL_LABEL, HOSTNAME_LABEL)
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"


def is_multihost_tpu(pool: NodePoolPlan) -> bool:
    placement = pool.placement
    return pool.kind == "tpu" and placement is not None and bool(placement.tpu_topology)


def keeps_nodes(pool: NodePoolPlan) -> bool:
    """The pool never scales below its largest size (TAS sees all of it)."""
    low, high = pool.node_bounds()
    return low == high and high > 0


def uses_slice_topology(pools: Sequence[NodePoolPlan]) -> bool:
    """A flavor over ``pools`` names the Topology: multi-host TPU slices whose nodes are all kept."""
    return bool(pools) and all(is_multihost_tpu(p) and keeps_nodes(p) for p in pools)


def topology_manifest(api: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": "Topology",
        "metadata": {"name": TOPOLOGY_NAME, "labels": dict(labels)},
        "spec": {"levels": [{"nodeLabel": label} for label in LEVELS]},
    }


def slice_annotations(vms: int) -> dict[str, str]:
    """Pod-template annotations of a JobSet's child Jobs: each child Job (``vms`` pods, one per VM) in
    one node pool, i.e. one whole slice; the child Jobs of a multislice JobSet in different slices
    (JobSet's exclusive placement keeps one child Job per pool)."""
    return {SLICE_REQUIRED: NODEPOOL_LABEL, SLICE_SIZE: str(vms)}
