"""The plan of a capacity ladder: which node pools stand behind each rung, and what the ladder adds to
those pools so that a ComputeClass may use them.

GKE "About custom ComputeClasses" (cloud.google.com/kubernetes-engine/docs/concepts/
about-custom-compute-classes, read 2026-12-02): a manually created node pool serves a ComputeClass
only with the node label and the ``NoSchedule`` taint ``cloud.google.com/compute-class=<class>``; a
pool is associated with one class; ``priorities[].nodepools`` lists pools in no order, so each rung is
its own ``nodepools`` rule. The rung label (``gke-accel/capacity-rung``) is gke-accel's own: it tells
the rungs' nodes apart so that each Kueue flavor selects exactly one rung.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gke_accel.model.pools.node_pool import NodePoolPlan, Taint
from gke_accel.model.pools.node_shape import COMPUTE_CLASS_LABEL, RUNG_LABEL
from gke_accel.model.pools.shape_name import shape_name

CONSUMPTION_RUNGS = ("on-demand", "flex-start", "spot")
RESERVATION_PREFIX = "reservation/"
POOL_PREFIX = "pool/"


@dataclass(frozen=True)
class RungPlan:
    text: str  # as written in the config
    slug: str  # the rung label's value, part of the flavor name
    pools: tuple[str, ...]  # derived node pool names (one per multi-host slice)
    consumption: str  # on-demand, reservation, flex-start, spot (of its pools)

    def flavor(self, shape: str) -> str:
        """The Kueue flavor of this rung."""
        return f"{shape}-{self.slug}"


@dataclass(frozen=True)
class LadderPlan:
    shape: str  # v5e-2x4, l4, ...
    rungs: tuple[RungPlan, ...]
    when_unsatisfiable: str
    optimize_rule_priority: bool

    @property
    def class_name(self) -> str:
        """The ComputeClass (named after the shape)."""
        return self.shape

    def rung_of(self, pool: str) -> RungPlan | None:
        return next((r for r in self.rungs if pool in r.pools), None)


def reservation_short(name: str) -> str:
    """``r`` of ``r`` or ``projects/p/reservations/r``."""
    return name.rsplit("/", 1)[-1]


def rung_slug(text: str) -> str:
    if text.startswith(RESERVATION_PREFIX):
        return f"reservation-{reservation_short(text.removeprefix(RESERVATION_PREFIX))}"
    if text.startswith(POOL_PREFIX):
        return f"pool-{text.removeprefix(POOL_PREFIX)}"
    return text


def spec_pool_of(derived: str, declared: Sequence[str]) -> str | None:
    """The declared pool a derived pool comes from (``name`` or ``name-s<i>`` for multi-host slices)."""
    for name in declared:
        if derived == name or re.fullmatch(rf"{re.escape(name)}-s\d+", derived):
            return name
    return None


def pools_of_shape(shape: str, pools: Sequence[NodePoolPlan]) -> list[NodePoolPlan]:
    return [p for p in pools if p.kind != "system" and shape_name(p) == shape]


def with_rung(pool: NodePoolPlan, ladder: LadderPlan, rung: RungPlan) -> NodePoolPlan:
    """``pool`` as it serves ``rung`` of ``ladder``: the class label and taint GKE requires, the rung label."""
    labels = {**pool.labels, COMPUTE_CLASS_LABEL: ladder.class_name, RUNG_LABEL: rung.slug}
    taint = Taint(COMPUTE_CLASS_LABEL, ladder.class_name)
    taints = pool.taints if taint in pool.taints else (*pool.taints, taint)
    return replace(pool, labels=labels, taints=taints)


def apply_ladders(pools: Sequence[NodePoolPlan], ladders: Sequence[LadderPlan]) -> tuple[NodePoolPlan, ...]:
    """Every pool, those behind a rung labelled and tainted for their ladder's ComputeClass."""
    out = []
    for pool in pools:
        for ladder in ladders:
            rung = ladder.rung_of(pool.name)
            if rung is not None:
                pool = with_rung(pool, ladder, rung)
                break
        out.append(pool)
    return tuple(out)


def flavor_ranks(ladders: Sequence[LadderPlan]) -> dict[str, int]:
    """Kueue flavor name -> its rung's position in its ladder (0 = most preferred)."""
    return {rung.flavor(ladder.shape): i for ladder in ladders for i, rung in enumerate(ladder.rungs)}


def ladder_of_pool(ladders: Sequence[LadderPlan], pool: str) -> LadderPlan | None:
    return next((ladder for ladder in ladders if ladder.rung_of(pool) is not None), None)
