"""Restart fast: image streaming on accelerator pools (and Artifact Registry in their region, what it
streams from), and the training image preloaded on a secondary boot disk.

GKE facts (docs/storage.md cites each page):

- "Use Image streaming to pull container images": node pool ``gcfs_config.enabled`` (provider
  ``node_config.gcfs_config``, which its docs say needs ``image_type = "COS_CONTAINERD"``); requires
  the Container File System API (``containerfilesystem.googleapis.com``); streams only images stored
  in Artifact Registry; images elsewhere are pulled whole as usual.
- "Use secondary boot disks to preload data or container images": node pool
  ``secondary_boot_disks { disk_image, mode = "CONTAINER_IMAGE_CACHE" }`` (provider
  ``node_config.secondary_boot_disks``), GKE 1.28.3-gke.1067000 or later on Standard; the disk is
  created from a disk image per node, in parallel with the node. The provider's docs (8.0.0):
  "``gcfs_config`` must be ``enabled=true`` for this feature to work".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.storage.config import StorageConfig
from gke_accel.model.storage.spec import RestartSpec

CONTAINER_FS_API = "containerfilesystem.googleapis.com"
PRELOAD_MODE = "CONTAINER_IMAGE_CACHE"
COS_IMAGE = "COS_CONTAINERD"
AR_HOST = re.compile(r"^(?P<location>[a-z0-9-]+)-docker\.pkg\.dev$")
DISK_IMAGE = re.compile(r"^(projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/)?global/images/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
REPOSITORY = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
MULTI_REGIONS = {"us": "us-", "europe": "europe-", "asia": "asia-"}


@dataclass(frozen=True)
class PoolRestart:
    pool: str
    image_streaming: bool
    preload_disk_image: str | None


def _preloads(pool: NodePoolPlan, name: str) -> bool:
    """Whether ``pool`` comes from the configured pool ``name`` (multi-slice TPU pools are ``<name>-s<i>``)."""
    return pool.name == name or re.fullmatch(rf"{re.escape(name)}-s\d+", pool.name) is not None


def _config_names(spec: StorageConfig) -> list[str]:
    return [p.name for p in spec.tpu_pools] + [p.name for p in spec.gpu_pools]


def streams(restart: RestartSpec, pool: NodePoolPlan) -> bool:
    """Image streaming on this pool: every accelerator pool on Container-Optimized OS (the provider's
    ``gcfs_config``: "you must specify image_type = COS_CONTAINERD"), unless turned off."""
    return pool.kind != "system" and restart.image_streaming and pool.image_type == COS_IMAGE


def pool_restart(restart: RestartSpec, pool: NodePoolPlan) -> PoolRestart:
    """What the node pool gets: image streaming (accelerator pools) and a preloaded image."""
    if pool.kind == "system":
        return PoolRestart(pool.name, False, None)
    image = next((p.disk_image for p in restart.preload if _preloads(pool, p.pool)), None)
    return PoolRestart(pool.name, streams(restart, pool), image)


def registry_host(region: str) -> str:
    return f"{region}-docker.pkg.dev"


def streaming_problem(image: str, region: str) -> str | None:
    """Why image streaming cannot serve ``image`` from the pools' region, or None."""
    host = image.split("/", 1)[0] if "/" in image else "docker.io"
    match = AR_HOST.fullmatch(host)
    if match is None:
        return f"{image} is not in Artifact Registry ({host}); image streaming serves Artifact Registry images"
    location = match.group("location")
    prefix = MULTI_REGIONS.get(location)
    if location != region and not (prefix and region.startswith(prefix)):
        return f"{image} is in Artifact Registry {location}, not in the pools' region {region}"
    return None


def check_restart(spec: StorageConfig, issues: IssueCollector) -> None:
    r = spec.restart
    names = _config_names(spec)
    if not REPOSITORY.fullmatch(r.registry.repository):
        issues.bad(
            "restart.registry.repository",
            r.registry.repository,
            "is not an Artifact Registry repository ID",
            "lowercase letters, digits and '-', starting with a letter, at most 63",
        )
    seen: set[str] = set()
    for i, p in enumerate(r.preload):
        path = f"restart.preload[{i}]"
        if p.pool not in names:
            issues.bad(f"{path}.pool", p.pool, "is not an accelerator pool of this environment", names or "none")
        elif p.pool in seen:
            issues.bad(f"{path}.pool", p.pool, "is preloaded twice", "one disk image per pool")
        seen.add(p.pool)
        if not DISK_IMAGE.fullmatch(p.disk_image):
            issues.bad(
                f"{path}.disk_image",
                p.disk_image,
                "is not a Compute Engine disk image path",
                "global/images/NAME or projects/PROJECT/global/images/NAME",
            )
        if not r.image_streaming:
            issues.bad(
                "restart.image_streaming",
                False,
                f"is off, but {path} preloads an image: a secondary boot disk needs gcfs_config (image streaming)",
                "true",
            )
        ubuntu = [g.name for g in spec.gpu_pools if g.name == p.pool and g.image_type != COS_IMAGE]
        if ubuntu:
            issues.bad(
                f"{path}.pool",
                p.pool,
                "runs Ubuntu: a secondary boot disk needs image streaming, which needs COS_CONTAINERD",
                "a COS_CONTAINERD pool",
            )


def restart_summary(spec: StorageConfig, pools: tuple[NodePoolPlan, ...]) -> str:
    """One line for ``synth``: what a restarted slice waits for."""
    r = spec.restart
    if not pools:
        return "restart: no accelerator pools"
    streaming = "image streaming on accelerator pools" if r.image_streaming else "image streaming off (full pulls)"
    full = sorted({p.name for p in pools if r.image_streaming and p.kind != "system" and not streams(r, p)})
    if full:
        streaming += f" (not {', '.join(full)}: not COS_CONTAINERD)"
    registry = (
        f"Artifact Registry {registry_host(spec.region)}/{spec.project_id}/{r.registry.repository}"
        if r.registry.create
        else "no Artifact Registry repository created (bring your own in " + spec.region + ")"
    )
    preload = "; ".join(f"{p.pool} preloads {p.disk_image}" for p in r.preload) or "no preloaded images"
    return f"restart: {streaming}; {registry}; {preload}"
