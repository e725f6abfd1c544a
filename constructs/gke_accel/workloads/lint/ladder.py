"""The ``ladder`` rule: where the environment has capacity ladders (model/capacity), a pod of a
ladder's accelerator shape climbs the ladder: it selects the ComputeClass (GKE then tries the rungs in
order, Kueue admits it on the first rung with room) and lands on some rung; it does not bypass the
ladder with a bare selector of the shape (an error: the class's taint keeps it off), and is warned when it
pins one rung (Spot, a reservation, a pool): it runs, on that rung only."""

from __future__ import annotations

from gke_accel.workloads.ladder import RUNG_PINS, class_selector
from gke_accel.workloads.lint._model import COMPUTE_CLASS_LABEL, EnvironmentPlan, ladders_of
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import PodGroup, as_dict
from gke_accel.workloads.nodes import PoolNodes


def ladder_findings(plan: EnvironmentPlan, g: PodGroup, pools: list[PoolNodes]) -> list[Finding]:
    ladders = {ladder.class_name: ladder for ladder in ladders_of(plan)}
    if not ladders:
        return []
    selector = {str(k): str(v) for k, v in as_dict(g.spec.get("nodeSelector")).items()}
    path = f"{g.path}.nodeSelector"
    chosen = selector.get(COMPUTE_CLASS_LABEL)
    if chosen is not None and chosen not in ladders:
        return [
            Finding(
                "ladder",
                "error",
                f"{path}.{COMPUTE_CLASS_LABEL}",
                f"{chosen!r} is not a ComputeClass of {plan.name}: no node serves it",
                f"one of: {', '.join(sorted(ladders))}",
            )
        ]
    if chosen is not None:
        pins = [k for k in selector if k in RUNG_PINS]
        if pins:
            return [
                Finding(  # it runs on that rung (real-engines W4f): a warning, not "will not run"
                    "ladder",
                    "warning",
                    f"{path}.{pins[0]}",
                    f"pins one rung of ladder {chosen} ({', '.join(pins)}): the pod runs there only, never falls "
                    "back to the next rung, nor comes back to a better one",
                    f"remove {', '.join(pins)}; keep {COMPUTE_CLASS_LABEL}: {chosen}",
                )
            ]
        return []
    # no class: a pod whose pools are all behind one ladder's rungs bypasses it
    behind = {ladder.class_name for p in pools for ladder in ladders.values() if ladder.rung_of(p.name)}
    if pools and len(behind) == 1 and all(any(lad.rung_of(p.name) for lad in ladders.values()) for p in pools):
        [name] = behind
        want = class_selector(plan, ladders[name])
        return [
            Finding(
                "ladder",
                "error",
                path,
                f"reaches the pools of ladder {name} ({', '.join(p.name for p in pools)}) without its ComputeClass: "
                "GKE schedules the class's pools only for pods that select it (their nodes carry its taint)",
                f"nodeSelector: {want}",
            )
        ]
    return []
