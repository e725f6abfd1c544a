"""``node-fit``: a pod that fits a node's allocatable as computed from the machine size may still not fit
the real node. GKE's own DaemonSets request cpu and memory from the same allocatable, and the kubelet's
capacity is below the machine size by the kernel's share (catalog ``node_fit``; the e2e tier's nodes
report that much less). A warning, not an error: the margins are not GKE facts."""

from __future__ import annotations

from decimal import Decimal

from gke_accel.workloads.lint._model import (
    KERNEL_MEMORY_PERCENT,
    SYSTEM_DAEMONS_CPU_MILLIS,
    SYSTEM_DAEMONS_MEMORY_MIB,
    fill_room,
)
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.nodes import PoolNodes

MIB = Decimal(1024 * 1024)


def fit_findings(path: str, requests: dict[str, Decimal], pools: list[PoolNodes]) -> list[Finding]:
    """A warning when the pod (its sidecars included) asks for more than ``fill_room`` on every pool it fits."""
    tight: list[str] = []
    for pool in pools:
        machine = pool.shape.machine
        if machine is None:
            return []
        room_millis, room_mib = fill_room(machine)
        cpu = requests.get("cpu", Decimal(0)) * 1000
        mib = requests.get("memory", Decimal(0)) / MIB
        if cpu <= room_millis and mib <= room_mib:
            return []
        tight.append(f"{pool.name}: {room_millis}m cpu, {room_mib}Mi memory")
    if not tight:
        return []
    return [
        Finding(
            "node-fit",
            "warning",
            f"{path}.containers[*].resources.requests",
            f"leaves less than GKE's DaemonSets ({SYSTEM_DAEMONS_CPU_MILLIS}m cpu, {SYSTEM_DAEMONS_MEMORY_MIB}Mi) and "
            f"the kernel's share of the machine's memory ({KERNEL_MEMORY_PERCENT:g}%) need on a node, so on a real "
            f"node it may stay Pending (Insufficient cpu or memory); room per node: {'; '.join(tight)}",
            "ask for at most that room (gke-accel workload new sizes pods so)",
        )
    ]
