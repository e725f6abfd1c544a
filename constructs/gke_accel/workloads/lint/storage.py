"""Lint rules for storage and restarts: the GCS FUSE sidecar counts toward the pod's requests (GKE
injects it for pods annotated ``gke-gcsfuse/volumes: "true"``), its file cache must fit a node,
and an image that image streaming cannot serve is pulled whole on every restart.

Facts: model/storage/fuse.py (sidecar requests and cache volume), model/storage/restart.py (which
registries image streaming serves)."""

from __future__ import annotations

from decimal import Decimal

from gke_accel.workloads.lint._model import (
    GCSFUSE_SIDECAR_CPU_MILLIS,
    GCSFUSE_SIDECAR_MEMORY_MIB,
    EnvironmentPlan,
    storage_fuse,
    storage_restart,
)
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Obj, PodGroup, as_dict, as_list, containers
from gke_accel.workloads.nodes import PoolNodes
from gke_accel.workloads.quantity import parse_quantity

_DEFAULTS = {  # GKE's sidecar requests when the pod does not set them (model/pools/allocatable.py)
    "cpu": (storage_fuse.CPU_REQUEST, Decimal(GCSFUSE_SIDECAR_CPU_MILLIS) / 1000),
    "memory": (storage_fuse.MEMORY_REQUEST, Decimal(GCSFUSE_SIDECAR_MEMORY_MIB) * 2**20),
    "ephemeral-storage": (storage_fuse.EPHEMERAL_REQUEST, Decimal(0)),
}


def has_sidecar(g: PodGroup) -> bool:
    return g.annotations.get(storage_fuse.SIDECAR_ANNOTATION) == "true"


def cache_volume(pod: Obj) -> tuple[str, Decimal] | None:
    """The sidecar's file cache volume: (disk | memory, its size limit), if the pod declares one."""
    for v in as_list(pod.get("volumes")):
        v = as_dict(v)
        if v.get("name") == storage_fuse.CACHE_VOLUME and "emptyDir" in v:
            empty = as_dict(v.get("emptyDir"))
            size = parse_quantity(empty.get("sizeLimit", 0)) or Decimal(0)
            return ("memory" if empty.get("medium") == "Memory" else "disk", size)
    return None


def with_sidecar(g: PodGroup, requests: dict[str, Decimal]) -> dict[str, Decimal]:
    """The pod's requests as the scheduler sees them once GKE has injected the GCS FUSE sidecar: its
    cpu, memory and ephemeral storage, and the file cache (in memory: memory; on disk: ephemeral storage)."""
    if not has_sidecar(g):
        return requests
    out = dict(requests)
    for name, (annotation, default) in _DEFAULTS.items():
        value = parse_quantity(g.annotations[annotation]) if annotation in g.annotations else default
        if value:
            out[name] = out.get(name, Decimal(0)) + value
    cache = cache_volume(g.spec)
    if cache is not None:
        name = "memory" if cache[0] == "memory" else "ephemeral-storage"
        out[name] = out.get(name, Decimal(0)) + cache[1]
    return out


def cache_findings(g: PodGroup, pools: list[PoolNodes]) -> list[Finding]:
    """A file cache larger than any node of the pod's kind can hold (the pod would be unschedulable,
    or evicted once the cache fills)."""
    cache = cache_volume(g.spec) if has_sidecar(g) else None
    if cache is None or not pools:
        return []
    medium, size = cache
    resource = "memory" if medium == "memory" else "ephemeral-storage"
    room = max((p.allocatable.get(resource, Decimal(0)) for p in pools), default=Decimal(0))
    if size <= room:
        return []
    gib = Decimal(2**30)
    return [
        Finding(
            "gcsfuse-cache",
            "error",
            f"{g.path}.volumes[{storage_fuse.CACHE_VOLUME}].emptyDir.sizeLimit",
            f"a {size / gib:.1f} GiB file cache ({medium}) is larger than a node can hold "
            f"({room / gib:.1f} GiB of {resource} on the largest node)",
            f"at most {room / gib:.0f}Gi, or the cache on {'disk' if medium == 'memory' else 'memory'}",
        )
    ]


def image_findings(plan: EnvironmentPlan, g: PodGroup, pools: list[PoolNodes]) -> list[Finding]:
    """Images that image streaming cannot serve on the accelerator pools the pod runs on."""
    streaming = {p.name for p in pools if storage_restart.streams(plan.spec.restart, p.plan)}
    if not streaming:
        return []
    findings = []
    for i, c in enumerate(containers(g.spec)):
        image = str(c.get("image", ""))
        problem = storage_restart.streaming_problem(image, plan.spec.region)
        if problem:
            findings.append(
                Finding(
                    "image-streaming",
                    "warning",
                    f"{g.path}.containers[{i}].image",
                    f"{problem}: every restart on {', '.join(sorted(streaming))} pulls the whole image",
                    f"push it to {storage_restart.registry_host(plan.spec.region)}/{plan.spec.project_id}/"
                    f"{plan.spec.restart.registry.repository}",
                )
            )
    return findings
