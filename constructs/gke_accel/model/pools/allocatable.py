"""What GKE leaves for Pods on a node: capacity minus GKE's reservation minus the eviction threshold.

GKE "Plan GKE Standard node sizes" (cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes):

- CPU reserved: 6 % of the first core, 1 % of the next core (up to 2), 0.5 % of the next 2 cores
  (up to 4), 0.25 % of every core above 4;
- memory reserved: 25 % of the first 4 GiB, 20 % of the next 4 GiB (up to 8), 10 % of the next 8 GiB
  (up to 16), 6 % of the next 112 GiB (up to 128), 2 % of everything above 128 GiB; 255 MiB on
  machines with less than 1 GiB;
- hard eviction threshold: 100 MiB of memory.

Allocatable = machine size - reserved (- eviction threshold for memory), computed from the machine
type's size in the catalog. GKE 1.37+ may reserve less memory (reported as ``min(this, 15 MiB x max
Pods + base)``), so this formula is a lower bound on allocatable memory: a pod that fits here fits there.
Real kubelets report a capacity a little below the machine size (firmware and kernel), which no page
quantifies: the catalog's ``node_fit.kernel_memory_percent`` is the margin a pod that fills a node leaves
for it (``pod_share``), and the e2e tier's nodes report that much less (``kernel_reduced``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gke_accel.catalog import Catalog, load_catalog

CPU_TIERS = ((1.0, 0.06), (1.0, 0.01), (2.0, 0.005), (math.inf, 0.0025))  # (cores in the tier, share reserved)
MEMORY_TIERS_GIB = ((4.0, 0.25), (4.0, 0.20), (8.0, 0.10), (112.0, 0.06), (math.inf, 0.02))
SMALL_MACHINE_RESERVED_MIB = 255.0  # machines with less than 1 GiB
EVICTION_THRESHOLD_MIB = 100.0
DEFAULT_MAX_PODS = 110  # Standard clusters' default maximum Pods per node


def _tiered(amount: float, tiers: tuple[tuple[float, float], ...]) -> float:
    reserved, left = 0.0, amount
    for size, share in tiers:
        step = min(left, size)
        if step <= 0:
            break
        reserved += step * share
        left -= step
    return reserved


def reserved_cpu_millis(vcpu: int) -> float:
    return _tiered(float(vcpu), CPU_TIERS) * 1000


def reserved_memory_mib(memory_gib: float) -> float:
    if memory_gib < 1:
        return SMALL_MACHINE_RESERVED_MIB
    return _tiered(memory_gib, MEMORY_TIERS_GIB) * 1024


@dataclass(frozen=True)
class NodeAllocatable:
    """cpu (millicores) and memory (MiB) one node of a machine type offers to Pods."""

    cpu_millis: int
    memory_mib: int
    pods: int = DEFAULT_MAX_PODS
    machine_memory_mib: int = 0  # the machine's size, which allocatable was computed from (0: not known)

    def as_k8s(self) -> dict[str, str]:
        return {"cpu": f"{self.cpu_millis}m", "memory": f"{self.memory_mib}Mi", "pods": str(self.pods)}


def allocatable_for(vcpu: int, memory_gib: int) -> NodeAllocatable:
    cpu = vcpu * 1000 - reserved_cpu_millis(vcpu)
    memory = memory_gib * 1024 - reserved_memory_mib(memory_gib) - EVICTION_THRESHOLD_MIB
    return NodeAllocatable(math.floor(cpu + 1e-6), math.floor(memory + 1e-6), machine_memory_mib=memory_gib * 1024)


def kernel_margin_mib(node: NodeAllocatable) -> int:
    """MiB of the machine's memory the kernel keeps (catalog ``node_fit.kernel_memory_percent``)."""
    return math.ceil(node.machine_memory_mib * KERNEL_MEMORY_PERCENT / 100)


def kernel_reduced(node: NodeAllocatable) -> tuple[int, NodeAllocatable]:
    """(capacity MiB, allocatable) of a node whose kernel keeps ``kernel_margin_mib``: capacity that much
    below the machine size, and GKE's reservation and eviction threshold taken from that capacity (what a
    real kubelet reports). The e2e tier's nodes look like this, so a pod too tight for a real node fails there."""
    capacity = node.machine_memory_mib - kernel_margin_mib(node)
    memory = capacity - reserved_memory_mib(capacity / 1024) - EVICTION_THRESHOLD_MIB
    return capacity, NodeAllocatable(node.cpu_millis, math.floor(memory + 1e-6), node.pods, capacity)


def machine_allocatable(machine_type: str, catalog: Catalog) -> NodeAllocatable | None:
    """Allocatable of ``machine_type``, or None where the catalog does not know its size."""
    size = catalog.machine_size(machine_type)
    return None if size is None else allocatable_for(size.vcpu, size.memory_gb)


# What else asks for a node's allocatable besides the workload's own containers:
# - GKE's system DaemonSets (logging, metrics, metadata server, CSI and device plugins, networking). No
#   page sums their requests: a margin, not a GKE fact (UNVERIFIED), one setting in the catalog
#   (accelerators.yaml ``node_fit``), as is the kernel's share of the machine's memory;
# - the Cloud Storage FUSE sidecar GKE injects into pods annotated ``gke-gcsfuse/volumes: "true"``. GKE
#   "Configure resources for the sidecar container" (Cloud Storage FUSE CSI driver): requests 250m CPU
#   and 256 MiB memory by default (the code review's C9 quotes the same), limits unset on Standard.
_FIT = load_catalog().node_fit
SYSTEM_DAEMONS_CPU_MILLIS = _FIT.daemonset_cpu_millis
SYSTEM_DAEMONS_MEMORY_MIB = _FIT.daemonset_memory_mib
KERNEL_MEMORY_PERCENT = _FIT.kernel_memory_percent
GCSFUSE_SIDECAR_CPU_MILLIS = 250
GCSFUSE_SIDECAR_MEMORY_MIB = 256


def fill_room(node: NodeAllocatable) -> tuple[int, int]:
    """cpu (millicores) and memory (MiB) a node's pods may ask for in all: allocatable less GKE's
    DaemonSets and (memory) the kernel's share of the machine (catalog ``node_fit``)."""
    return (
        node.cpu_millis - SYSTEM_DAEMONS_CPU_MILLIS,
        node.memory_mib - SYSTEM_DAEMONS_MEMORY_MIB - kernel_margin_mib(node),
    )


def pod_share(node: NodeAllocatable, share: float, *, gcsfuse_sidecar: bool) -> tuple[int, int]:
    """cpu (millicores) and memory (MiB) for a pod that owns ``share`` of a node (1 = the whole VM):
    that share of ``fill_room``, less the FUSE sidecar the pod brings along."""
    room_cpu, room_memory = fill_room(node)
    cpu = math.floor(room_cpu * share)
    memory = math.floor(room_memory * share)
    if gcsfuse_sidecar:
        cpu -= GCSFUSE_SIDECAR_CPU_MILLIS
        memory -= GCSFUSE_SIDECAR_MEMORY_MIB
    return max(cpu, 250), max(memory, 512)
