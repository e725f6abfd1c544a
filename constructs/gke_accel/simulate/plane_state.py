"""Reading the control plane's objects: a Workload's conditions and admitted flavor (the runner, the
serving Deployments) and the signature of the Workloads' and pods' states that the virtual clock
compares between two polls (it changes whenever a controller acted)."""

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


def condition(obj: Obj | None, kind: str) -> dict[str, Any] | None:
    """The object's condition ``kind`` when it is True."""
    for c in (obj or {}).get("status", {}).get("conditions", []) or []:
        if c.get("type") == kind and c.get("status") == "True":
            return dict(c)
    return None


def admitted_flavor(wl: Obj | None, resource: str) -> str:
    """The ResourceFlavor a Workload's admission assigned to ``resource`` ('' when none)."""
    for ps in (wl or {}).get("status", {}).get("admission", {}).get("podSetAssignments", []):
        flavor = ps.get("flavors", {}).get(resource)
        if flavor:
            return str(flavor)
    return ""
