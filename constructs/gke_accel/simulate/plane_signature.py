"""What the virtual clock compares between two polls of the control plane (simulate/virtual.py): a
signature of the Workloads' and pods' states that changes whenever a controller acted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CONDITIONS = ("QuotaReserved", "Admitted", "Evicted", "Finished")
Obj = dict[str, Any]
Workloads = dict[tuple[str, str], Obj]


def status(obj: Obj, kind: str) -> tuple[str, str]:
    for c in obj.get("status", {}).get("conditions", []) or []:
        if c.get("type") == kind:
            return str(c.get("status", "")), str(c.get("reason", ""))
    return "", ""


def unschedulable(pod: Obj) -> bool:
    return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable"
               for c in pod.get("status", {}).get("conditions", []) or [])  # fmt: skip


def signature(workloads: Workloads, pods: Sequence[Obj]) -> tuple[Any, ...]:
    """What a poll saw that the control plane changes: each Workload's admission, eviction and finish
    conditions, each pod's phase, node, deletion and schedulability."""
    wl = sorted((key, tuple(status(w, c) for c in CONDITIONS)) for key, w in workloads.items())
    ps = sorted((p["metadata"].get("namespace", ""), p["metadata"]["name"], p.get("status", {}).get("phase", ""),
                 p.get("spec", {}).get("nodeName", ""), "deletionTimestamp" in p["metadata"], unschedulable(p))
                for p in pods)  # fmt: skip
    return tuple(wl), tuple(ps)
