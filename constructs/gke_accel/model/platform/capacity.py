"""Accelerator capacity versus team quotas: what the pools can provide at their largest size,
and what the teams were promised, per accelerator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import advertised_bounds
from gke_accel.model.teams.accelerators import accelerator_key
from gke_accel.model.teams.spec import TeamSpec


@dataclass(frozen=True)
class CapacityRow:
    resource: str  # nvidia.com/gpu or google.com/tpu
    accelerator: str  # GPU accelerator type or TPU node label value
    chips_min: int
    chips_max: int
    team_quotas: dict[str, int] = field(default_factory=dict)

    @property
    def quota_total(self) -> int:
        return sum(self.team_quotas.values())

    @property
    def over_committed(self) -> bool:
        return self.quota_total > self.chips_max


def capacity_rows(
    pools: Sequence[NodePoolPlan], teams: Sequence[TeamSpec], catalog: Catalog | None = None
) -> list[CapacityRow]:
    """One row per accelerator that a pool provides or a team asks for (unknown names skipped)."""
    catalog = catalog or load_catalog()
    bounds: dict[tuple[str, str], list[int]] = {}
    for pool in pools:
        if pool.kind == "system":
            continue
        low, high = advertised_bounds(pool, catalog)  # MIG instances and shared slots, as nodes advertise
        entry = bounds.setdefault((pool.resource, pool.unit), [0, 0])
        entry[0] += low
        entry[1] += high
    quotas: dict[tuple[str, str], dict[str, int]] = {}
    for team in teams:
        for name, amount in team.accelerators.items():
            key = accelerator_key(name, catalog)
            if key is not None:
                per_team = quotas.setdefault(key, {})
                per_team[team.name] = per_team.get(team.name, 0) + amount
    keys = sorted(set(bounds) | set(quotas))
    return [
        CapacityRow(r, a, bounds.get((r, a), [0, 0])[0], bounds.get((r, a), [0, 0])[1], quotas.get((r, a), {}))
        for r, a in keys
    ]


__all__ = ["CapacityRow", "accelerator_key", "capacity_rows"]
