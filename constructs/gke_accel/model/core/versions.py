"""GKE version strings (``1.31.2-gke.1115000``) and the minimum versions the catalog documents."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gke_accel.catalog import Catalog
from gke_accel.model.core.errors import IssueCollector

_VERSION = re.compile(r"(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?(?:-gke\.(\d{1,12}))?")


def version_key(text: str) -> tuple[int, int, int, int] | None:
    """Comparable form of a GKE version, or None when it is not one. Missing parts count as 0."""
    match = _VERSION.fullmatch(text)
    if match is None:
        return None
    major, minor, patch, build = (int(part or 0) for part in match.groups())
    return major, minor, patch, build


def pin_reaches(pinned: str, needed: str) -> bool | None:
    """Can a ``min_master_version`` pin run a feature that needs GKE ``needed``? A minor pin
    (``1.28``) means that minor's newest patch, a patch pin (``1.28.3``) that patch's newest build,
    so only the parts the pin names are compared. None when either is not a version."""
    match = _VERSION.fullmatch(pinned)
    need = version_key(needed)
    if match is None or need is None:
        return None
    given = [int(p) for p in match.groups() if p is not None]
    if match.group(4) is not None and match.group(3) is None:
        given = [given[0], given[1], 0, given[2]]
    return tuple(given) >= need[: len(given)]


def check_min_versions(
    min_master_version: str | None, generations: Iterable[str], catalog: Catalog, issues: IssueCollector
) -> None:
    """A pinned control-plane version must be at least what each TPU generation in use needs.
    ``generations`` are the ones the config names (even in a pool with another mistake: the
    version problem is independent of it); unknown names are skipped."""
    if min_master_version is None or min_master_version == "latest":
        return
    if version_key(min_master_version) is None:
        issues.bad(
            "cluster.min_master_version",
            min_master_version,
            "is not a GKE version",
            "e.g. 1.33 or 1.33.2-gke.1111000, or latest",
        )
        return
    for gen_name in sorted({g for g in generations if g in catalog.tpu_generations}):
        needed = catalog.tpu_generations[gen_name].min_gke_version
        if pin_reaches(min_master_version, needed) is False:
            issues.bad(
                "cluster.min_master_version",
                min_master_version,
                f"is older than GKE {needed}, the first version with {gen_name} TPUs",
                f">= {needed} (a minor pin such as {'.'.join(needed.split('.')[:2])} is enough)",
            )
