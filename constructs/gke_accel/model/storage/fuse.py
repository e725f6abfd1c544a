"""The Cloud Storage FUSE mount of the checkpoint bucket in generated workloads, and what it costs
the node: the sidecar's requests and the file cache that makes restores fast.

GKE facts (docs/storage.md cites each page):

- "Optimize Cloud Storage FUSE CSI driver for GKE performance": mount options of a CSI ephemeral
  volume go in ``volumeAttributes.mountOptions``, comma-separated, e.g.
  ``implicit-dirs,file-cache:enable-parallel-downloads:true``; ``only-dir`` mounts one directory;
  ``uid``/``gid`` for non-root containers. Parallel downloads need the file cache.
- "Cloud Storage FUSE CSI driver volume attributes": ``fileCacheCapacity`` (translated to
  ``file-cache:max-size-mb``; "we recommend that you use mount options"), ``fileCacheForRangeRead``
  (= ``file-cache:cache-file-for-range-read``). This module writes the mount options.
- "Configure the Cloud Storage FUSE CSI driver sidecar container": the sidecar is injected for pods
  annotated ``gke-gcsfuse/volumes: "true"``; its requests are set by the annotations
  ``gke-gcsfuse/cpu-request``, ``gke-gcsfuse/memory-request``, ``gke-gcsfuse/ephemeral-storage-request``
  (250m CPU and 256 MiB by default, model/pools/allocatable.py); a volume named
  ``gke-gcsfuse-cache`` replaces the default cache volume (an emptyDir, on disk or in memory).
- "Plan GKE Standard node sizes": local ephemeral storage on the boot disk. GKE reserves
  ``min(50% of the disk, 6 GiB + 35% of the disk, 100 GiB)`` and evicts at 10% of the file system's
  capacity. The page's example node (a 100 GB boot disk) shows capacity 98831908Ki and allocatable
  ephemeral-storage 47060071478 bytes. Capacity is 94.25% of the disk (the file system's share),
  and the formula gives 43.83 GiB for it (tests/storage/test_fuse.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gke_accel.model.platform.spec import CheckpointSpec
from gke_accel.model.pools.allocatable import GCSFUSE_SIDECAR_CPU_MILLIS, GCSFUSE_SIDECAR_MEMORY_MIB

GIB = 2**30
SIDECAR_ANNOTATION = "gke-gcsfuse/volumes"
CPU_REQUEST = "gke-gcsfuse/cpu-request"
MEMORY_REQUEST = "gke-gcsfuse/memory-request"
EPHEMERAL_REQUEST = "gke-gcsfuse/ephemeral-storage-request"
CACHE_VOLUME = "gke-gcsfuse-cache"
SIDECAR_EPHEMERAL_GIB = 5  # what generated pods request for the sidecar (logs, buffers; not the cache)
FS_CAPACITY_SHARE = 98831908 * 1024 / (100 * GIB)  # the page's example: capacity of a 100 GB boot disk
DEFAULT_CACHE_SHARE = 0.5  # of the pod's share of the node's ephemeral storage (disk) or memory (memory)


def ephemeral_allocatable_bytes(boot_disk_gb: int) -> int:
    """Local ephemeral storage a node offers to Pods when it lives on a boot disk of ``boot_disk_gb``."""
    disk = boot_disk_gb * GIB
    capacity = disk * FS_CAPACITY_SHARE
    reserved = min(0.5 * disk, 6 * GIB + 0.35 * disk, 100 * GIB)
    return max(0, math.floor(capacity - reserved - 0.10 * capacity))


@dataclass(frozen=True)
class FuseMount:
    """The checkpoint volume, its cache volume and the pod annotations that size the sidecar."""

    mount_options: str
    annotations: dict[str, str]
    cache_volume: dict[str, Any] | None
    cache_gib: int = 0
    medium: str = "off"  # disk | memory | off
    notes: tuple[str, ...] = field(default_factory=tuple)


def default_cache_gib(cp: CheckpointSpec, *, share: float, boot_disk_gb: int, memory_mib: int) -> int:
    """The file cache a pod gets unless ``file_cache_gib`` says: half its share of the node's
    ephemeral storage less the sidecar's own request (disk), or a quarter of the pod's memory."""
    if cp.file_cache == "off":
        return 0
    if cp.file_cache_gib is not None:
        return cp.file_cache_gib
    if cp.file_cache == "memory":
        return max(1, memory_mib // 4 // 1024)
    room = share * ephemeral_allocatable_bytes(boot_disk_gb) / GIB - SIDECAR_EPHEMERAL_GIB
    return max(1, math.floor(room * DEFAULT_CACHE_SHARE))


def checkpoint_mount(team: str, uid: int, cp: CheckpointSpec, cache_gib: int) -> FuseMount:
    """The mount of ``<bucket>/<team>/``: parallel downloads and a file cache of ``cache_gib`` for
    restores (a restore reads every shard once, in large ranges), sidecar requests made explicit."""
    options = [f"only-dir={team}", "implicit-dirs", f"uid={uid}", f"gid={uid}"]
    annotations = {
        SIDECAR_ANNOTATION: "true",
        CPU_REQUEST: f"{GCSFUSE_SIDECAR_CPU_MILLIS}m",
        MEMORY_REQUEST: f"{GCSFUSE_SIDECAR_MEMORY_MIB}Mi",
        EPHEMERAL_REQUEST: f"{SIDECAR_EPHEMERAL_GIB}Gi",
    }
    if cp.file_cache == "off" or cache_gib <= 0:
        return FuseMount(",".join(options), annotations, None)
    options += [
        f"file-cache:max-size-mb:{cache_gib * 1024}",
        "file-cache:cache-file-for-range-read:true",
        "file-cache:enable-parallel-downloads:true",
    ]
    empty_dir: dict[str, Any] = {"sizeLimit": f"{cache_gib}Gi"}
    if cp.file_cache == "memory":
        empty_dir["medium"] = "Memory"
    volume = {"name": CACHE_VOLUME, "emptyDir": empty_dir}
    return FuseMount(",".join(options), annotations, volume, cache_gib, cp.file_cache)
