"""Safety items for the lifecycle posture (docs/lifecycle.md): a change that removes a maintenance
exclusion, or that lets a training pool be upgraded by a rolling surge (a multi-host slice split, a
gang job restarted node by node). Read from the two synthesized documents; pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import ResourceChange, SafetyItem

CLUSTER = "google_container_cluster"
POOL = "google_container_node_pool"
ROLE_LABEL = "gke-accel/role"


def _one(value: Any) -> Mapping[str, Any]:
    if isinstance(value, list):
        value = value[0] if value else {}
    return value if isinstance(value, Mapping) else {}


def exclusions(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    found = _one(body.get("maintenance_policy")).get("maintenance_exclusion") or []
    items = found if isinstance(found, list) else [found]
    return {str(e.get("exclusion_name")): e for e in items if isinstance(e, Mapping)}


def _training(body: Mapping[str, Any]) -> bool:
    labels = _one(body.get("node_config")).get("labels") or {}
    return isinstance(labels, Mapping) and labels.get(ROLE_LABEL) == "training"


def _rolling(body: Mapping[str, Any]) -> bool:
    """A surge that takes nodes one batch at a time (max_surge > 0), rather than all at once."""
    u = _one(body.get("upgrade_settings"))
    return u.get("strategy", "SURGE") == "SURGE" and int(u.get("max_surge", 1) or 0) > 0


def lifecycle_items(change: ResourceChange, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[SafetyItem]:
    if change.action not in ("update", "replace"):
        return []
    items: list[SafetyItem] = []
    if change.rtype == CLUSTER:
        for name in sorted(set(exclusions(before)) - set(exclusions(after))):
            scope = _one(exclusions(before)[name].get("exclusion_options")).get("scope", "NO_UPGRADES")
            items.append(
                SafetyItem(
                    "exclusion-removed",
                    f"maintenance exclusion `{name}` ({scope}) of cluster `{after.get('name') or change.logical_id}`",
                    "GKE may upgrade the nodes in the next maintenance window: every pod on an upgraded node "
                    "is stopped, and a multi-host slice loses all its pods when one VM goes.",
                    "keep the exclusion until training runs are drained to a checkpoint, or replace it "
                    "with one that ends later (docs/lifecycle.md).",
                )
            )
    if change.rtype == POOL and _training(after) and _rolling(after) and not (_training(before) and _rolling(before)):
        items.append(
            SafetyItem(
                "training-pool-surge",
                f"training pool `{after.get('name') or change.logical_id}` now upgrades by rolling surge",
                "GKE upgrades its nodes a batch at a time: a job spread over the pool restarts at each batch, "
                "and a multi-host TPU slice is stopped whole for every VM upgraded.",
                "upgrade all nodes at once (max_surge 0, max_unavailable = the pool's nodes: the training "
                "default), or give the pool another role.",
            )
        )
    return items
