"""Config shapes for the in-cluster platform: teams with accelerator quotas, priority classes,
checkpoint storage and the NVIDIA driver installer. Rules live in ``model/platform/rules.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gke_accel.model.teams.spec import PodSecurityLevel, PriorityClassesSpec, PriorityClassSpec, TeamSpec


@dataclass(frozen=True)
class CheckpointSpec:
    """A GCS bucket for checkpoints; each team may read and write only ``<team>/`` in it."""

    enabled: bool = True
    bucket: str | None = None  # default: <project_id>-<environment>-checkpoints
    location: str | None = None  # default: the environment's region
    noncurrent_version_days: int = 30  # flat buckets (versioned): delete noncurrent versions after this
    noncurrent_versions_kept: int = 3  # flat buckets: keep this many newer versions of each object
    # Options and rules: model/storage/bucket.py and fuse.py, docs/storage.md
    hierarchical_namespace: bool = True  # folders, atomic renames; no object versioning (GCS)
    soft_delete_days: int = 7  # deleted objects stay restorable: 0 (off) or 7 to 90 (GCS)
    max_age_days: int | None = None  # delete checkpoint objects older than this (unset: never)
    file_cache: Literal["disk", "memory", "off"] = "disk"  # GCS FUSE read cache for restores
    file_cache_gib: int | None = None  # default: half the pod's share of the node's ephemeral storage


@dataclass(frozen=True)
class DriverInstallerSpec:
    """The NVIDIA driver DaemonSet, used by GPU pools with ``driver_mode: daemonset``.

    Pools that need different installer variants (COS and Ubuntu, or different pinned versions)
    get one DaemonSet each only when ``multiple_variants`` says so.
    """

    multiple_variants: bool = False


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the platform declares inside the cluster."""

    kubernetes_version: str = "1.33"  # the minor version manifests are validated against
    priority_classes: PriorityClassesSpec = field(default_factory=PriorityClassesSpec)
    checkpoints: CheckpointSpec = field(default_factory=CheckpointSpec)
    driver_installer: DriverInstallerSpec = field(default_factory=DriverInstallerSpec)


__all__ = [
    "CheckpointSpec",
    "DriverInstallerSpec",
    "PlatformSpec",
    "PodSecurityLevel",
    "PriorityClassSpec",
    "PriorityClassesSpec",
    "TeamSpec",
]
