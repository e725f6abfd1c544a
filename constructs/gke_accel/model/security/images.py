"""The image name patterns the Binary Authorization policy allows."""

from __future__ import annotations

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.security.spec import BinaryAuthorizationSpec


def _directory(image: str) -> str | None:
    """``gcr.io/gke-release/x@sha256:...`` -> ``gcr.io/gke-release/*``; None for an image without a
    registry host (preloaded on the node, e.g. ``cos-nvidia-installer:fixed``)."""
    name = image.split("@", 1)[0]
    if "/" not in name or "." not in name.split("/", 1)[0]:
        return None
    return f"{name.rsplit('/', 1)[0]}/*"


def allowed_image_patterns(
    spec: BinaryAuthorizationSpec, *, project: str, region: str, catalog: Catalog | None = None
) -> tuple[str, ...]:
    """The configured patterns, the project's Artifact Registry in the region, and the folders of
    the driver installer's pinned images (from the catalog), without duplicates."""
    facts = (catalog or load_catalog()).driver_installer
    catalog_images = (facts.pause_image, facts.partition_image, facts.cos_installer_image, facts.ubuntu_installer_image)
    patterns = [
        *spec.allowed_images,
        f"{region}-docker.pkg.dev/{project}/*",
        *(d for d in map(_directory, catalog_images) if d),
    ]
    return tuple(dict.fromkeys(patterns))
