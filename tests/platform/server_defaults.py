"""What the Kubernetes API server does to our objects on the way in -- the v1 defaulting that the real
server showed us (docs/e2e.md) -- so the fast tier sees the drift before a cluster does."""

from __future__ import annotations

import copy
from typing import Any


def _limit_range_item(item: dict[str, Any]) -> None:
    # SetDefaults_LimitRangeItem (core/v1): for Container items, default <- max, defaultRequest <- default, min.
    if item.get("type") != "Container":
        return
    default = item.setdefault("default", {})
    for key, value in item.get("max", {}).items():
        default.setdefault(key, value)
    request = item.setdefault("defaultRequest", {})
    for key, value in [*default.items(), *item.get("min", {}).items()]:
        request.setdefault(key, value)
    for key in ("default", "defaultRequest"):
        if not item[key]:
            del item[key]


def as_stored(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` as the API server stores and returns it (for the fields we use)."""
    stored = copy.deepcopy(manifest)
    if stored["kind"] == "LimitRange":
        for item in stored["spec"]["limits"]:
            _limit_range_item(item)
    if stored["kind"] == "PriorityClass":
        if stored.get("globalDefault") is False:  # a false bool is omitted (omitempty)
            del stored["globalDefault"]
        stored.setdefault("preemptionPolicy", "PreemptLowerPriority")
    return stored
