"""Shared name and location rules: GKE names, GCP labels, regions and zones."""

from __future__ import annotations

import difflib
import re

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.labels import check_resource_labels

POOL_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,34}[a-z0-9])?$")  # 40 max in GKE; we keep 4 for slice suffixes
CLUSTER_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")
ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-(?:ai[0-9]+[a-z]|[a-z])$")  # standard or AI zone (zones.md 8.1)
LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
GCE_NAME = re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?")  # networks, subnetworks, ranges, reservations
GCE_NAME_HELP = "1-63 lowercase letters, digits and '-', starting with a letter, not ending with '-'"
PROJECT_ID = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")


def region_of(zone: str) -> str:
    return zone.rsplit("-", 1)[0]


def check_pool_name(name: str, path: str, issues: IssueCollector) -> None:
    if not POOL_NAME.fullmatch(name):
        issues.bad(
            path,
            name,
            "is not a valid node pool name",
            "lowercase letters, digits and '-', starting with a letter, at most 36 characters",
        )


def check_zones(zones: tuple[str, ...], region: str, path: str, issues: IssueCollector) -> None:
    for i, zone in enumerate(zones):
        if not ZONE.fullmatch(zone) or region_of(zone) != region:
            issues.bad(f"{path}[{i}]", zone, f"is not a zone of region {region}", f"{region}-a, {region}-b, ...")
    if len(set(zones)) != len(zones):
        issues.bad(path, list(zones), "lists a zone twice")


def check_labels(labels: dict[str, str], path: str, issues: IssueCollector) -> None:
    """GCP resource labels (environment and cluster ``labels``); node labels: core.labels."""
    check_resource_labels(labels, path, issues)


def check_project_id(value: str, path: str, issues: IssueCollector) -> None:
    if not isinstance(value, str) or not PROJECT_ID.fullmatch(value):
        issues.bad(
            path, value, "is not a valid project ID", "6-30 lowercase letters, digits and '-', starting with a letter"
        )


def check_region(value: str, path: str, issues: IssueCollector) -> bool:
    """An issue unless ``value`` is a region name; a near miss (``us-central-1``) gets the region it
    resembles. True when it is one (rules that derive zones from it run only then)."""
    if isinstance(value, str) and REGION.fullmatch(value):
        return True
    from gke_accel.catalog import load_catalog  # the zone data, only for a mistake

    regions = sorted(load_catalog().zones.regions)
    text = value.replace("-", "") if isinstance(value, str) else ""
    near = difflib.get_close_matches(text, [r.replace("-", "") for r in regions], n=1, cutoff=0.8)
    match = next((r for r in regions if near and r.replace("-", "") == near[0]), None)
    issues.bad(path, value, "is not a region name", f"did you mean {match}?" if match else "e.g. us-central1")
    return False


def claim_pool_name(seen: dict[str, str], name: str, path: str, issues: IssueCollector) -> None:
    """Record pool ``name`` declared at ``path``; an issue if an earlier pool (or the system pool,
    which ``seen`` starts with) already has it."""
    if name in seen:
        issues.bad(path, name, f"is already used by {seen[name]}", "a unique pool name")
    seen[name] = path
