"""Config shapes for the in-cluster platform: teams with accelerator quotas, priority classes,
checkpoint storage and the NVIDIA driver installer. Rules live in ``model/platform/rules.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PodSecurityLevel = Literal["restricted", "baseline"]


@dataclass(frozen=True)
class TeamSpec:
    """A team: its namespace, quotas, identity and access.

    ``accelerators`` maps a GPU model (``l4``, ``h100``, ...) or TPU generation (``v5e``, ...) to the
    GPUs or TPU chips the team may request. Kubernetes enforces the sum per resource
    (``requests.nvidia.com/gpu``, ``requests.google.com/tpu``); the split per model is checked
    against pool capacity at synth time.
    """

    name: str
    google_group: str
    accelerators: dict[str, int] = field(default_factory=dict)
    cpu: int = 64
    memory_gib: int = 256
    pods: int = 200
    priority_classes: tuple[str, ...] = ()  # allowed classes by name; empty = all defined classes
    namespace: str | None = None  # default: the team name
    # Pod Security admission level enforced in the namespace; restricted: no privileged, host or root pods
    pod_security: PodSecurityLevel = "restricted"


@dataclass(frozen=True)
class PriorityClassSpec:
    name: str
    value: int


@dataclass(frozen=True)
class PriorityClassesSpec:
    """Three classes: inference preempts training at peaks; training is the default; batch never
    preempts anyone. Names and values are configurable; values must keep that order."""

    inference: PriorityClassSpec = field(default_factory=lambda: PriorityClassSpec("inference", 100000))
    training: PriorityClassSpec = field(default_factory=lambda: PriorityClassSpec("training", 10000))
    batch: PriorityClassSpec = field(default_factory=lambda: PriorityClassSpec("batch", 1000))


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
