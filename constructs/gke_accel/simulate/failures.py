"""``--node-failures RATE``: node losses during a run, seeded. RATE is failures per simulated day over the
environment's accelerator nodes. A failure takes a whole TPU slice (GKE recovers a multi-host slice
whole: every VM of the node pool) or one GPU node: the nodes are deleted, their pods marked Failed with a
``DisruptionTarget`` condition (what podgc does to the pods of a deleted node, without its 40 s
quarantine that compressed time would stretch to hours) and removed, and the nodes come back after
``REPAIR`` simulated seconds. A JobSet's child Job then fails by its podFailurePolicy and the JobSet
controller restarts it whole; a Job recreates its pod (podFailurePolicy Ignore)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gke_accel.simulate.api import Api

MAX_FAILURES = 10_000  # failures of one run, whatever the rate (the CLI refuses a rate that would draw more)
REPAIR = 600.0  # simulated seconds until the lost nodes are back
DAY = 86400.0
POOL_LABEL = "cloud.google.com/gke-nodepool"
Obj = dict[str, Any]


@dataclass(frozen=True)
class Failure:
    t: float  # simulated seconds
    nodes: tuple[str, ...]


def failure_units(nodes: Sequence[Mapping[str, Any]]) -> list[tuple[str, ...]]:
    """What one failure takes: every node of a multi-host TPU pool, or one GPU/single-host node."""
    units: dict[str, list[str]] = {}
    for n in nodes:
        alloc = n.get("status", {}).get("allocatable", {})
        labels = n["metadata"].get("labels", {})
        if "google.com/tpu" in alloc and "cloud.google.com/gke-tpu-topology" in labels:
            units.setdefault(labels.get(POOL_LABEL, n["metadata"]["name"]), []).append(n["metadata"]["name"])
        elif "google.com/tpu" in alloc or "nvidia.com/gpu" in alloc:
            units[n["metadata"]["name"]] = [n["metadata"]["name"]]
    return [tuple(sorted(v)) for _, v in sorted(units.items())]


def schedule(rate_per_day: float, until: float, units: Sequence[tuple[str, ...]], seed: int) -> list[Failure]:
    """Poisson failures at ``rate_per_day`` over [0, until), each on a unit chosen uniformly; at most
    MAX_FAILURES (a finite rate and horizon are required: NaN or infinity would never end the draw)."""
    if not (math.isfinite(rate_per_day) and math.isfinite(until)):
        raise ValueError(f"failure rate {rate_per_day!r} and horizon {until!r} must be finite")
    rng = random.Random(seed)
    out: list[Failure] = []
    t = 0.0
    if rate_per_day <= 0 or not units:
        return out
    while len(out) < MAX_FAILURES:
        t += rng.expovariate(rate_per_day / DAY)
        if t >= until:
            return out
        out.append(Failure(t, units[rng.randrange(len(units))]))
    return out


def fail_nodes(api: Api, names: Sequence[str], saved: dict[str, Obj]) -> list[Obj]:
    """Delete the nodes (kept in ``saved`` to recreate), fail and remove their pods; the pods affected."""
    hit: list[Obj] = []
    for name in names:
        try:
            saved[name] = api.get(f"/api/v1/nodes/{name}")
        except Exception:
            continue
        api.delete(f"/api/v1/nodes/{name}")
        for pod in api.items(f"/api/v1/pods?fieldSelector=spec.nodeName%3D{name}"):
            meta = pod["metadata"]
            path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"
            if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                continue
            condition = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                         "message": "PodGC: node no longer exists"}  # fmt: skip
            try:
                api.patch_status(path, {"status": {"phase": "Failed", "conditions": [condition]}})
                api.request("DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0})
            except Exception:
                pass
            hit.append(pod)
    return hit


def restore_nodes(api: Api, saved: dict[str, Obj], names: Sequence[str]) -> None:
    for name in names:
        node = saved.pop(name, None)
        if node is None:
            continue
        meta = {k: v for k, v in node["metadata"].items() if k in ("name", "labels", "annotations")}
        spec = {k: v for k, v in node.get("spec", {}).items() if k in ("taints", "podCIDR", "providerID")}
        status = {k: v for k, v in node.get("status", {}).items() if k in ("allocatable", "capacity", "nodeInfo")}
        api.create({"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec, "status": status})
