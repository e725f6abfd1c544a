"""What the Kubernetes API server does to our objects on the way in -- the v1 defaulting that the real
server showed us (docs/e2e.md) -- so the fast tier sees the drift before a cluster does."""

from __future__ import annotations

import copy
import re
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


_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def canonical_quantity(quantity: str) -> str:
    """Whole binary-suffixed quantities as the server writes them back: the largest suffix that keeps
    the number whole (``4096Gi`` -> ``4Ti``, ``1536Mi`` stays). Other forms are returned unchanged."""
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti|Pi|Ei)", quantity)
    if not m:
        return quantity
    value, index = int(m.group(1)), _BINARY.index(m.group(2))
    if value == 0:
        return "0"
    while value % 1024 == 0 and index < len(_BINARY) - 1:
        value, index = value // 1024, index + 1
    return f"{value}{_BINARY[index]}"


def _quantities(resources: dict[str, Any]) -> None:
    for key, value in resources.items():
        if isinstance(value, str):
            resources[key] = canonical_quantity(value)


def as_stored(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` as the API server stores and returns it (for the fields we use)."""
    stored = copy.deepcopy(manifest)
    if stored["kind"] == "LimitRange":
        for item in stored["spec"]["limits"]:
            _limit_range_item(item)
            for key in ("default", "defaultRequest", "max", "min"):
                _quantities(item.get(key, {}))
    if stored["kind"] == "ResourceQuota":
        _quantities(stored["spec"]["hard"])
    if stored["kind"] == "PriorityClass":
        if stored.get("globalDefault") is False:  # a false bool is omitted (omitempty)
            del stored["globalDefault"]
        stored.setdefault("preemptionPolicy", "PreemptLowerPriority")
    return stored
