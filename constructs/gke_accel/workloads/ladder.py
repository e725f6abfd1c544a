"""Workloads and the capacity ladders (model/capacity): what a pod selects to climb a ladder (its
ComputeClass and accelerator shape, never one rung), and the tolerations of every rung's nodes.

GKE ("About custom ComputeClasses"): a pod selects a class with the node selector
``cloud.google.com/compute-class: <class>``; GKE adds the toleration of the class taint to such pods
itself; the workload tools write it too so that the pod also schedules where that admission step is
not there (the e2e tier), and the rungs' other taints (Spot) which GKE does not add.
"""

from __future__ import annotations

from typing import Any

from gke_accel.workloads._model import (
    CAPACITY_LABEL,
    FLEX_START_LABEL,
    NODEPOOL_LABEL,
    POOL_LABEL,
    QUEUED_LABEL,
    RESERVATION_LABEL,
    RUNG_LABEL,
    SPOT_LABEL,
    EnvironmentPlan,
    LadderPlan,
    NodeShape,
    ladders_of,
    node_shape,
)

# Labels that pick one rung (or one pool) of a ladder: a workload that selects one bypasses the ladder.
RUNG_PINS = (
    RUNG_LABEL,
    CAPACITY_LABEL,
    SPOT_LABEL,
    FLEX_START_LABEL,
    QUEUED_LABEL,
    RESERVATION_LABEL,
    NODEPOOL_LABEL,
    POOL_LABEL,
)


def ladder_of_pool(plan: EnvironmentPlan, pool: str) -> LadderPlan | None:
    return next((ladder for ladder in ladders_of(plan) if ladder.rung_of(pool) is not None), None)


def rung_shapes(plan: EnvironmentPlan, ladder: LadderPlan) -> list[NodeShape]:
    names = {name for rung in ladder.rungs for name in rung.pools}
    return [node_shape(p) for p in plan.pools if p.name in names]


def class_selector(plan: EnvironmentPlan, ladder: LadderPlan) -> dict[str, str]:
    """The node selector of a workload on the ladder: the class and the shape, no rung."""
    first = rung_shapes(plan, ladder)[0].selector()
    return {k: v for k, v in first.items() if k not in RUNG_PINS}


def class_tolerations(plan: EnvironmentPlan, ladder: LadderPlan) -> list[dict[str, str]]:
    """Every taint of every rung's nodes, tolerated (the class taint, the accelerator, Spot)."""
    seen: dict[tuple[str, str, str], dict[str, str]] = {}
    for shape in rung_shapes(plan, ladder):
        for t in shape.taints:
            seen.setdefault((t.key, t.value, t.effect), t.toleration())
    return [seen[k] for k in sorted(seen)]


def place_on_ladder(plan: EnvironmentPlan, pool: str, pod: dict[str, Any]) -> None:
    """Point a generated pod spec at the ladder of ``pool`` (when it is behind a rung) instead of the pool."""
    ladder = ladder_of_pool(plan, pool)
    if ladder is None:
        return
    pod["nodeSelector"] = class_selector(plan, ladder)
    pod["tolerations"] = class_tolerations(plan, ladder)


def avoid_capacity(plan: EnvironmentPlan, pool: str, pod: dict[str, Any], kinds: tuple[str, ...]) -> None:
    """Keep a pod behind the ladder of ``pool`` off the rungs of these kinds of capacity
    (``gke-accel/capacity`` values), when the ladder has such rungs, with a required node affinity:
    kube-scheduler skips those nodes, and Kueue skips a flavor whose node labels the pod's required
    affinity excludes (Kueue v0.19.2 pkg/scheduler/flavorassigner ``flavorSelector``: "flavor %s doesn't
    match node affinity"), so the pod never climbs to those rungs. Not where the pod's node selector
    already picks one capacity (it cannot land elsewhere anyway)."""
    ladder = ladder_of_pool(plan, pool)
    if CAPACITY_LABEL in pod.get("nodeSelector", {}) or ladder is None:
        return
    rungs = {name for rung in ladder.rungs for name in rung.pools}
    if not any(p.consumption in kinds for p in plan.pools if p.name in rungs):
        return
    term = {"matchExpressions": [{"key": CAPACITY_LABEL, "operator": "NotIn", "values": list(kinds)}]}
    affinity = pod.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    required = affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": [{}]})
    for t in required["nodeSelectorTerms"]:  # ORed terms: the exclusion goes into each
        t.setdefault("matchExpressions", []).extend(term["matchExpressions"])
