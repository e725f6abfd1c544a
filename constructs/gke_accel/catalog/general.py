"""General-purpose facts of the catalog besides accelerators: what a pod that fills a node must leave
(accelerators.yaml ``node_fit``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NodeFit:
    """Margins a pod that fills a node leaves: GKE's DaemonSets' requests and the kernel's share of the
    machine's memory (accelerators.yaml ``node_fit``, with the reasons for each number)."""

    daemonset_cpu_millis: int
    daemonset_memory_mib: int
    kernel_memory_percent: float


def node_fit(raw: dict[str, Any]) -> NodeFit:
    return NodeFit(
        int(raw["daemonsets"]["cpu_millis"]),
        int(raw["daemonsets"]["memory_mib"]),
        float(raw["kernel_memory_percent"]),
    )
