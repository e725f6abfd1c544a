"""Each ladder as rows: rung, Kueue flavor, the pools behind it, their most chips, and what a node and a
chip of the rung cost per hour in the cost model (model/observability/cost.py, catalog/prices.yaml).
Printed by ``synth`` and shown in docs/capacity.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.capacity.ladder import LadderPlan
from gke_accel.model.observability.cost import pool_cost
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import advertised_bounds


class WithPools(Protocol):
    """What the rows read of an environment plan (``EnvironmentPlan`` has it)."""

    @property
    def pools(self) -> Sequence[NodePoolPlan]: ...


@dataclass(frozen=True)
class RungRow:
    position: int  # 1 = most preferred
    rung: str
    flavor: str
    pools: tuple[str, ...]
    chips_max: int
    node_hour: float | None  # USD per node-hour (None: no list price)
    chip_hour: float | None
    note: str

    def cells(self) -> list[object]:
        money = "-" if self.node_hour is None else f"${self.node_hour:.2f}"
        chip = "-" if self.chip_hour is None else f"${self.chip_hour:.2f}"
        return [self.position, self.rung, self.flavor, ", ".join(self.pools), self.chips_max, money, chip, self.note]


HEADERS = ["#", "rung", "Kueue flavor", "node pools", "most chips", "per node-hour", "per chip-hour", "note"]


def ladder_rows(env: WithPools, ladder: LadderPlan, catalog: Catalog | None = None) -> list[RungRow]:
    catalog = catalog or load_catalog()
    pools = {p.name: p for p in env.pools}
    rows = []
    for i, rung in enumerate(ladder.rungs, start=1):
        members = [pools[name] for name in rung.pools]
        cost = pool_cost(members[0], catalog)
        chips_per_node = members[0].chips_per_node or 1
        hourly = cost.hourly_per_node
        rows.append(
            RungRow(
                position=i,
                rung=rung.text,
                flavor=rung.flavor(ladder.shape),
                pools=rung.pools,
                chips_max=sum(advertised_bounds(p, catalog)[1] for p in members),
                node_hour=hourly,
                chip_hour=None if hourly is None else round(hourly / chips_per_node, 4),
                note=cost.note,
            )
        )
    return rows


def ladder_lines(env: WithPools, ladders: Sequence[LadderPlan]) -> list[tuple[LadderPlan, list[RungRow]]]:
    return [(ladder, ladder_rows(env, ladder)) for ladder in ladders]
