"""Config shapes of "restart fast": image streaming on accelerator pools, the Artifact Registry
repository it streams from, and images preloaded on secondary boot disks. Rules:
``model/storage/restart.py``; docs/storage.md."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RegistrySpec:
    """A Docker repository in Artifact Registry in the environment's region (image streaming serves
    Artifact Registry images)."""

    create: bool = True
    repository: str = "training"


@dataclass(frozen=True)
class PreloadSpec:
    """Preload the training image on a secondary boot disk of the pool's nodes (mode
    CONTAINER_IMAGE_CACHE): ``disk_image`` is a Compute Engine disk image that holds the image,
    ``global/images/NAME`` or ``projects/PROJECT/global/images/NAME``."""

    pool: str
    disk_image: str


@dataclass(frozen=True)
class WeightsSpec:
    """Where inference pods read model weights, per team: ``gcs-fuse`` (a read-only Cloud Storage
    FUSE mount with the file cache) or ``hyperdisk-ml`` (a ReadOnlyMany Hyperdisk ML volume that GKE
    Volume Populator fills from Cloud Storage). ``teams`` maps a team name to its choice."""

    default: str = "gcs-fuse"
    teams: dict[str, str] = field(default_factory=dict)
    throughput_mib: int = 2400  # Hyperdisk ML provisioned-throughput-on-create (MiB/s)


@dataclass(frozen=True)
class RestartSpec:
    """How fast a restarted slice gets its image back."""

    image_streaming: bool = True  # on every accelerator pool (gcfs_config)
    registry: RegistrySpec = field(default_factory=RegistrySpec)
    preload: tuple[PreloadSpec, ...] = ()
