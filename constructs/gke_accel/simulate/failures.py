"""``--node-failures RATE``: node losses during a run, seeded. RATE is failures per simulated day over the
environment's accelerator nodes. A failure takes a whole TPU slice (GKE recovers a multi-host slice
whole: every VM of the node pool) or one GPU node.

What is an input and what the engines do (docs/simulate.md "Measured on the real controllers, and
inputs"):
- inputs: the loss times (drawn), ``DETECT`` = GKE's ``GRACE`` + ``TOLERATION`` (the simulated seconds
  between the loss and the eviction of the node's pods, during which they stay Running in the twin,
  holding the chips, their work lost), and ``REPAIR`` (the simulated seconds until the nodes are back,
  counted from the loss);
- the engines (the twin's real controllers, twin/lifecycle.py): at loss + ``DETECT`` the runner stops
  kwok heartbeating the nodes (``silence``: it removes the label kwok manages them by, so their Leases
  are no longer renewed); the node-lifecycle controller sets Ready Unknown and taints them
  ``unreachable:NoExecute``, the taint-eviction controller deletes their pods with a ``DisruptionTarget``
  condition; on a topology (TAS) flavor Kueue 0.19.2's node controller sees the terminating pods on the
  NotReady nodes, records the failed node and, with a second failed node or no replacement
  (TASFailedNodeReplacementFailFast), evicts the Workload (reason ``NodeFailures``) and requeues it at
  once (no ``requeueAt`` backoff: only WaitForPodsReady sets one), so it may be admitted again at once.
  Either way nothing reports the evicted pods failed on a dead node: they stay Terminating, and the Job
  (a podFailurePolicy replaces terminal pods only) runs nothing until the repair. At the repair (at
  least one jump after the silence) the runner gives the nodes back to kwok (``revive``): kwok
  heartbeats them Ready, the node-lifecycle controller lifts the taints, the stranded pods end (kwok,
  then the runner's kubelet stand-in, noted), and the Job/JobSet controllers run the job again.
- the lost work follows from the run interval the engines produced: the run keeps the checkpoints it
  wrote before the loss; everything from its last checkpoint to the moment its pods stopped is lost.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gke_accel.simulate.api import Api

MAX_FAILURES = 10_000  # failures of one run, whatever the rate (the CLI refuses a rate that would draw more)
# GKE does not publish its control plane's flags: the upstream defaults (the 1.33 binaries' --help)
GRACE = 50.0  # --node-monitor-grace-period: a silent node is marked Unknown and tainted after this
TOLERATION = 300.0  # --default-unreachable-toleration-seconds (DefaultTolerationSeconds): then its pods go
DETECT = GRACE + TOLERATION  # simulated seconds from a loss to the eviction of the node's pods (an input)
REPAIR = 600.0  # simulated seconds from a loss until the nodes are back (an input; docs/simulate.md "Node loss")
KWOK_LABEL = "type"  # kwok manages the nodes labelled type=kwok (twin/cluster.py start_kwok)
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


def node_pods(api: Api, names: Sequence[str]) -> list[Obj]:
    """The pods bound to the nodes ``names`` that have not ended."""
    out: list[Obj] = []
    for name in names:
        for pod in api.items(f"/api/v1/pods?fieldSelector=spec.nodeName%3D{name}"):
            if pod.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
                out.append(pod)
    return out


def silence(api: Api, names: Sequence[str]) -> None:
    """The nodes stop heartbeating: kwok no longer manages them (their Leases are not renewed)."""
    _kwok_manages(api, names, None)


def revive(api: Api, names: Sequence[str]) -> None:
    """The repaired nodes: kwok manages them again (heartbeats them Ready)."""
    _kwok_manages(api, names, "kwok")


def _kwok_manages(api: Api, names: Sequence[str], value: str | None) -> None:
    """Set (``"kwok"``) or remove (None) the label kwok manages nodes by."""
    for name in names:
        api.request("PATCH", f"/api/v1/nodes/{name}", {"metadata": {"labels": {KWOK_LABEL: value}}},
                    "application/merge-patch+json")  # fmt: skip
