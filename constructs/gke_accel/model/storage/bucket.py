"""The checkpoint bucket's options and their rules: hierarchical namespace, soft delete, lifecycle
and location. The construct (``cdk/platform.py``) renders :func:`bucket_options` as it is.

Cloud Storage facts (docs/storage.md cites each page):

- hierarchical namespace ("Hierarchical namespace", storage/docs/hns-overview): folders with atomic
  rename, higher initial request rates; set at creation only ("can't be changed after the bucket is
  created"), needs uniform bucket-level access ("Create and manage buckets with hierarchical namespace
  enabled"), and does not support Object Versioning, so a hierarchical bucket keeps no noncurrent
  versions and its noncurrent-version rules do not apply;
- soft delete ("Soft delete", storage/docs/soft-delete; "Quotas & limits"): deleted objects stay
  restorable for the retention duration, 7 days by default, at most 90 days; 0 turns it off;
- lifecycle ("Object Lifecycle Management"): conditions ``age`` (days since creation),
  ``numNewerVersions`` and ``daysSinceNoncurrentTime`` (versioned buckets only). Cloud Storage cannot
  keep "the last N checkpoints" of a run: a rule sees one object, not its siblings. Only noncurrent
  versions of one object name can be counted (``numNewerVersions``). So checkpoints are pruned by
  the writer (e.g. Orbax ``max_to_keep``), optionally backed by an age rule, and soft delete is the
  undo.
"""

from __future__ import annotations

from dataclasses import dataclass

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.platform.spec import CheckpointSpec

DAY_SECONDS = 86400
SOFT_DELETE_MIN_DAYS = 7
SOFT_DELETE_MAX_DAYS = 90
SOFT_DELETE_DEFAULT_DAYS = 7


@dataclass(frozen=True)
class LifecycleRule:
    """One Delete rule; exactly one condition set."""

    age_days: int | None = None
    num_newer_versions: int | None = None
    days_since_noncurrent: int | None = None
    noncurrent_only: bool = False  # with_state ARCHIVED: applies to noncurrent versions only


@dataclass(frozen=True)
class BucketOptions:
    location: str
    hierarchical_namespace: bool
    versioning: bool
    soft_delete_seconds: int
    rules: tuple[LifecycleRule, ...]

    def describe(self) -> str:
        """One line for ``synth``'s summary."""
        keep = []
        for r in self.rules:
            if r.age_days is not None:
                keep.append(f"objects deleted after {r.age_days} d")
            elif r.num_newer_versions is not None:
                keep.append(f"{r.num_newer_versions} newer versions kept")
            elif r.days_since_noncurrent is not None:
                keep.append(f"noncurrent versions deleted after {r.days_since_noncurrent} d")
        soft = (
            f"soft delete {self.soft_delete_seconds // DAY_SECONDS} d" if self.soft_delete_seconds else "no soft delete"
        )
        layout = "hierarchical namespace" if self.hierarchical_namespace else "flat, versioned"
        return f"{self.location}, {layout}, {soft}" + (f", {'; '.join(keep)}" if keep else ", pruned by the writer")


def bucket_options(cp: CheckpointSpec, region: str) -> BucketOptions:
    """What the checkpoint bucket is created with."""
    rules: list[LifecycleRule] = []
    if cp.max_age_days is not None:
        rules.append(LifecycleRule(age_days=cp.max_age_days))
    versioning = not cp.hierarchical_namespace
    if versioning:  # overwritten objects (e.g. a "latest" pointer) keep a few old versions
        rules.append(LifecycleRule(days_since_noncurrent=cp.noncurrent_version_days, noncurrent_only=True))
        rules.append(LifecycleRule(num_newer_versions=cp.noncurrent_versions_kept, noncurrent_only=True))
    return BucketOptions(
        location=(cp.location or region).upper(),
        hierarchical_namespace=cp.hierarchical_namespace,
        versioning=versioning,
        soft_delete_seconds=cp.soft_delete_days * DAY_SECONDS,
        rules=tuple(rules),
    )


MULTI_REGIONS = {"us": "us-", "eu": "europe-", "asia": "asia-"}  # Cloud Storage "Bucket locations"


def in_region(location: str, region: str) -> bool:
    """The bucket is in ``region``, or in the multi-region that holds it."""
    loc = location.lower()
    prefix = MULTI_REGIONS.get(loc)
    return loc == region.lower() or (prefix is not None and region.lower().startswith(prefix))


def check_bucket_options(cp: CheckpointSpec, region: str, issues: IssueCollector) -> None:
    """Soft delete, age and location against what Cloud Storage accepts and what keeps checkpoint
    writes fast: the bucket in the region of the pools that write it."""
    path = "platform.checkpoints"
    days = cp.soft_delete_days
    if days != 0 and not SOFT_DELETE_MIN_DAYS <= days <= SOFT_DELETE_MAX_DAYS:
        issues.bad(
            f"{path}.soft_delete_days",
            days,
            "is not a soft delete duration Cloud Storage accepts",
            f"0 (off) or {SOFT_DELETE_MIN_DAYS} to {SOFT_DELETE_MAX_DAYS} days",
        )
    if cp.max_age_days is not None and cp.max_age_days < 1:
        issues.bad(f"{path}.max_age_days", cp.max_age_days, "is out of range", "1 or more, or unset (never)")
    if cp.location is not None and not in_region(cp.location, region):
        issues.bad(
            f"{path}.location",
            cp.location,
            f"is not the pools' region {region}: every checkpoint would cross regions (slower writes and "
            "restores, inter-region transfer charges)",
            f"{region} (or unset), or the multi-region that holds it",
        )
    if cp.file_cache_gib is not None and cp.file_cache_gib < 1:
        issues.bad(f"{path}.file_cache_gib", cp.file_cache_gib, "is out of range", "1 or more, or unset")
    if cp.file_cache == "off" and cp.file_cache_gib is not None:
        issues.bad(
            f"{path}.file_cache_gib",
            cp.file_cache_gib,
            "is set, but file_cache is off",
            "unset, or file_cache disk/memory",
        )
