"""Is an accelerator offered in a zone? The rule of zones.md section 8.5, on the data in zones.yaml.

- a source lists it there: accept;
- only an old, partial or disputed source lists it: accept with a warning;
- the zone is known and no source lists it: an error, unless the pool sets ``allow_unlisted_zone``
  (a reservation or allowlist the public data does not show), which makes it a warning;
- the zone is not in the data (a new region, an undocumented AI zone), a GPU in an AI zone, or a
  TPU generation not listed for a documented AI zone: a warning only.
Every warning and error names the date of the data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from gke_accel.catalog import ZoneFacts
from gke_accel.model.core.errors import IssueCollector

AI_ZONE = re.compile(r"[a-z]+-[a-z]+[0-9]+-ai[0-9]+[a-z]")
Kind = Literal["tpu", "gpu"]
Level = Literal["ok", "warn", "error"]

_WEAK_WHY = {
    "doc-old": "only an older copy of the TPU page lists it (single-tenant)",
    "api-unpriced": "only the API snapshot lists it, without a price",
    "A-edge-only": "only A3 Edge machines (a3-edgegpu-8g) are listed there",
    "A-partial": "only a3-highgpu-1g/2g/4g are listed there, no -8g",
    "disputed": "the API snapshot lists it but the newer regions page does not",
}


@dataclass(frozen=True)
class ZoneVerdict:
    zone: str
    level: Level
    reason: str = ""


def zone_verdict(facts: ZoneFacts, kind: Kind, accelerator: str, zone: str, shown: str) -> ZoneVerdict:
    """How the zone rule judges ``accelerator`` (a TPU generation or GPU type, ``shown`` to the user)
    in ``zone``; the zone's syntax and region are checked elsewhere."""
    tags = set(facts.tags(kind, zone, accelerator))
    listed = bool(tags & facts.listed_tags) and "disputed" not in tags
    if AI_ZONE.fullmatch(zone):
        if zone not in facts.ai_zones:
            return ZoneVerdict(zone, "warn", "is not a documented AI zone; availability there is unknown")
        if kind == "gpu":
            return ZoneVerdict(zone, "warn", "is an AI zone; no source lists GPUs per AI zone")
        if listed:
            return ZoneVerdict(zone, "ok")
        return ZoneVerdict(zone, "warn", f"is a documented AI zone where no source lists {shown}")
    if listed:
        return ZoneVerdict(zone, "ok")
    if tags:
        why = "; ".join(_WEAK_WHY[t] for t in sorted(tags) if t in _WEAK_WHY) or "a weak source lists it"
        return ZoneVerdict(zone, "warn", f"may not offer {shown}: {why}")
    known = zone in facts.standard_zones or (kind == "tpu" and zone in facts.tpu_only_zones)
    if not known:
        return ZoneVerdict(zone, "warn", "is not in the zone data; availability there is unknown")
    return ZoneVerdict(zone, "error", f"does not offer {shown}: no source lists it there")


def offered_zones(facts: ZoneFacts, kind: Kind, accelerator: str, region: str) -> list[str]:
    """Zones of ``region`` where a source lists the accelerator (for 'valid:' hints)."""
    return [z for z in facts.zones_for(kind, accelerator) if z.rsplit("-", 1)[0] == region]


def check_pool_zones(
    facts: ZoneFacts,
    kind: Kind,
    accelerator: str,
    shown: str,
    zones: Iterable[str],
    *,
    region: str,
    path: str,
    inherited_from: str | None,
    allow_unlisted: bool,
    issues: IssueCollector,
    scalar: bool = False,
) -> None:
    """Apply the zone rule to every zone of a pool (its own zones at ``path``, or the cluster's
    zones it inherits from ``inherited_from``): errors into ``issues``, warnings as warnings."""
    date = f"zone data as of {facts.as_of}"
    for i, zone in enumerate(zones):
        verdict = zone_verdict(facts, kind, accelerator, zone, shown)
        where = f"{path}[{i}]" if inherited_from is None and not scalar else path
        source = "" if inherited_from is None else f" (inherited from {inherited_from})"
        if verdict.level == "ok":
            continue
        if verdict.level == "warn" or allow_unlisted:
            issues.warn(where, f"{zone}{source} {verdict.reason} ({date})")
            continue
        offered = offered_zones(facts, kind, accelerator, region)
        valid = ", ".join(offered) if offered else f"no zone of {region} lists {shown}"
        override = "set allow_unlisted_zone: true if you hold capacity there"
        issues.bad(where, zone, f"{source.strip()} {verdict.reason} ({date}); {override}".strip(), valid)
