"""Typed view of ``zones.yaml``: which zones exist and which accelerators each zone's sources list.

Only data lives here; the zone rule (accept, warn, reject, override) is in the model.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

from gke_accel.catalog._yaml import safe_load

Cells = dict[str, dict[str, tuple[str, ...]]]  # zone -> accelerator -> source tags


@dataclass(frozen=True)
class ZoneFacts:
    as_of: str  # date of the newest dated source behind the data
    standard_zones: frozenset[str]  # every zone of the Compute Engine regions page
    tpu_only_zones: frozenset[str]  # zones that exist only for TPUs (us-central2-b)
    ai_zones: frozenset[str]  # documented AI zones
    listed_tags: frozenset[str]  # a source lists the accelerator there
    weak_tags: frozenset[str]  # listed only by an old, partial or disputed source
    tpu: Cells
    gpu: Cells

    @property
    def regions(self) -> frozenset[str]:
        return frozenset(z.rsplit("-", 1)[0] for z in self.standard_zones | self.tpu_only_zones | self.ai_zones)

    def tags(self, kind: str, zone: str, accelerator: str) -> tuple[str, ...]:
        """Source tags for ``accelerator`` (TPU generation or GPU type) in ``zone``; empty when none."""
        cells = self.tpu if kind == "tpu" else self.gpu
        return cells.get(zone, {}).get(accelerator, ())

    def zones_for(self, kind: str, accelerator: str) -> tuple[str, ...]:
        """Every zone where some source lists the accelerator, sorted."""
        cells = self.tpu if kind == "tpu" else self.gpu
        return tuple(sorted(z for z, row in cells.items() if accelerator in row))


def _cells(raw: dict[str, Any]) -> Cells:
    return {
        str(zone): {str(acc): tuple(str(t) for t in tags) for acc, tags in (row or {}).items()}
        for zone, row in raw.items()
    }


@functools.cache
def load_zone_facts() -> ZoneFacts:
    text = resources.files("gke_accel.catalog").joinpath("zones.yaml").read_text(encoding="utf-8")
    raw = safe_load(text)
    standard = frozenset(f"{region}-{letter}" for region, letters in raw["regions"].items() for letter in letters)
    facts = ZoneFacts(
        as_of=str(raw["as_of"]),
        standard_zones=standard,
        tpu_only_zones=frozenset(raw["tpu_only_zones"]),
        ai_zones=frozenset(raw["ai_zones"]),
        listed_tags=frozenset(raw["tags"]["listed"]),
        weak_tags=frozenset(raw["tags"]["weak"]),
        tpu=_cells(raw["tpu_zones"]),
        gpu=_cells(raw["gpu_zones"]),
    )
    known = facts.listed_tags | facts.weak_tags
    for cells in (facts.tpu, facts.gpu):
        for zone, row in cells.items():
            for acc, tags in row.items():
                if not tags or not set(tags) <= known:
                    raise ValueError(f"zones.yaml: {zone}.{acc}: unknown source tags {tags}")
    return facts
