"""Rules on how a multi-host workload maps onto slices and nodes:

- ``slice-placement``: the pods of one TPU slice must share one node pool (one ICI domain). A JobSet
  gets that from ``alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool``
  (JobSet's exclusive placement: each child Job on a node pool of its own, whole); a bare Job only
  from a ``cloud.google.com/gke-nodepool`` selector. Needed where more than one slice pool fits.
- ``slices``: JobSet replicas (slices) against the slices of that shape in every pool that fits.
- ``multi-node``: a multi-node GPU job (a JobSet, or a Job that sets MASTER_ADDR) against the pool:
  nodes x GPUs per node, one pool for all nodes, and a compact placement policy (a warning).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from gke_accel.workloads.lint._model import GPU_RESOURCE, NODEPOOL_LABEL
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.scheduling import required_terms
from gke_accel.workloads.manifests import PodGroup, Workload, as_dict, containers
from gke_accel.workloads.nodes import PoolNodes, slices_of

EXCLUSIVE_KEY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODEPOOL = NODEPOOL_LABEL
TORCH_ENV = ("MASTER_ADDR", "PET_MASTER_ADDR", "PET_NNODES")


def _exclusive_topology(wl: Workload, g: PodGroup) -> str | None:
    """The exclusive-topology key of the JobSet or of this replicated job's template, if any."""
    meta = as_dict(wl.obj.get("metadata"))
    value = as_dict(meta.get("annotations")).get(EXCLUSIVE_KEY)
    if value is None and g.job_path.startswith("spec.replicatedJobs["):
        index = int(g.job_path.split("[", 1)[1].split("]", 1)[0])
        rjobs = as_dict(wl.obj.get("spec")).get("replicatedJobs") or []
        if index < len(rjobs):
            template = as_dict(as_dict(rjobs[index]).get("template"))
            value = as_dict(as_dict(template.get("metadata")).get("annotations")).get(EXCLUSIVE_KEY)
    return str(value) if value is not None else None


def pinned_pool(spec: dict[str, Any]) -> bool:
    """The pod selects one node pool by name (nodeSelector or a required node-affinity In of one value)."""
    if NODEPOOL in as_dict(spec.get("nodeSelector")):
        return True
    for term in required_terms(spec) or []:
        for e in as_dict(term).get("matchExpressions") or []:
            e = as_dict(e)
            if e.get("key") == NODEPOOL and e.get("operator") == "In" and len(e.get("values") or []) == 1:
                return True
    return False


def _replicas_path(g: PodGroup) -> str:
    return f"{g.job_path.rsplit('.template', 1)[0]}.replicas"


def slice_findings(wl: Workload, g: PodGroup, pools: list[PoolNodes]) -> list[Finding]:
    """``pools``: the pools the group fits on (every one a multi-host slice pool, checked by the caller)."""
    multi = [p for p in pools if slices_of(p) > 0]
    if not multi or g.job is None or len(multi) != len(pools):
        return []
    topology = multi[0].plan.tpu_topology
    names = ", ".join(p.name for p in multi)
    out: list[Finding] = []
    exclusive = _exclusive_topology(wl, g) if wl.kind == "JobSet" else None
    pinned = pinned_pool(g.spec)
    if len(multi) > 1 and not pinned and exclusive != NODEPOOL:
        if wl.kind == "JobSet":
            where = "metadata.annotations" if exclusive is None else f"metadata.annotations.{EXCLUSIVE_KEY}"
            out.append(
                Finding(
                    "slice-placement",
                    "error",
                    where,
                    f"the pods of one slice may land in different node pools ({names}), each its own "
                    f"{topology} slice: the TPU runtime cannot form a slice across pools and the job hangs",
                    f"{EXCLUSIVE_KEY}: {NODEPOOL} (each child Job gets a node pool of its own, whole)",
                )
            )
        else:
            out.append(
                Finding(
                    "slice-placement",
                    "error",
                    f"{g.path}.nodeSelector",
                    f"a {wl.kind} cannot keep its pods on one slice: they may land in different node pools "
                    f"({names}), each its own {topology} slice, and the TPU runtime cannot form the slice",
                    f"use a JobSet with {EXCLUSIVE_KEY}: {NODEPOOL} (gke-accel workload new --kind jobset), "
                    f"or select one pool: {NODEPOOL}: {multi[0].name}",
                )
            )
    if wl.kind == "JobSet":
        # each pinned replica shares the one pool; otherwise every fitting pool holds slices
        slices = slices_of(multi[0]) if pinned else sum(slices_of(p) for p in multi)
        if g.replicas > slices:
            where = f"pool {multi[0].name} holds" if pinned else f"the pools it fits ({names}) hold"
            out.append(
                Finding(
                    "slices",
                    "error",
                    _replicas_path(g),
                    f"is {g.replicas}: {where} {slices} {topology} slice(s), one per replica",
                    f"at most {slices}",
                )
            )
    return out


def _gpus(requests: dict[str, Decimal]) -> int:
    return int(requests.get(GPU_RESOURCE, Decimal(0)))


def _distributed(wl: Workload, g: PodGroup) -> bool:
    if g.job is None or g.job.get("completionMode") != "Indexed" or g.pods < 2 * g.replicas:
        return False
    names = {str(as_dict(e).get("name")) for c in containers(g.spec) for e in c.get("env") or []}
    return wl.kind == "JobSet" or bool(names & set(TORCH_ENV))


def multi_node_findings(
    wl: Workload, g: PodGroup, requests: dict[str, Decimal], pools: list[PoolNodes]
) -> list[Finding]:
    """A multi-node GPU job: all its nodes at once in one pool, close together."""
    gpus = _gpus(requests)
    if not gpus or not pools or not _distributed(wl, g):
        return []
    nodes = g.pods // max(1, g.replicas)
    out: list[Finding] = []
    if len(pools) > 1 and not pinned_pool(g.spec):
        out.append(
            Finding(
                "multi-node",
                "warning",
                f"{g.path}.nodeSelector",
                f"the {nodes} nodes may be spread over pools ({', '.join(p.name for p in pools)}), "
                "each with its own placement policy",
                f"select one: {NODEPOOL}: {pools[0].name}",
            )
        )
    best = max(pools, key=lambda p: p.max_nodes)
    per_node = int(best.allocatable.get(GPU_RESOURCE, Decimal(0)))
    fit = best.max_nodes * (per_node // gpus if gpus else 0)
    if nodes > fit:
        out.append(
            Finding(
                "multi-node",
                "error",
                f"{g.job_path}.parallelism",
                f"runs {nodes} pods x {gpus} GPUs = {nodes * gpus} GPUs at once, but pool {best.name} holds "
                f"{fit} such pods ({best.max_nodes} nodes x {per_node} GPUs): the job never starts whole",
                f"at most {fit} pods",
            )
        )
    loose = [p.name for p in pools if not (p.plan.placement and p.plan.placement.compact)]
    if loose:
        out.append(
            Finding(
                "multi-node",
                "warning",
                f"{g.path}.nodeSelector",
                f"pool(s) {', '.join(loose)} have no compact placement policy: the nodes may be far apart "
                "in the zone, and NCCL traffic between them slows training",
                "run it on a pool with placement: compact",
            )
        )
    return out
