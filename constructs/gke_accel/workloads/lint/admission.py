"""What Kueue does to a pod before the scheduler sees it, where the team's work goes through Kueue.

Kueue v0.19 (``pkg/scheduler/flavorassigner``): a pod set may be assigned a flavor of its ClusterQueue
only if it tolerates the flavor's ``nodeTaints`` (the flavor's own tolerations count) and its
nodeSelector and required node affinity match the flavor's ``nodeLabels`` on the keys those labels
have; once admitted, the flavor's nodeLabels join the pod's nodeSelector and its tolerations the pod's
tolerations. So a team pod without the Spot toleration runs on a Spot flavor (real-engines W4a), and a
whole-GPU pod never reaches a split-GPU flavor (W3). Every team workload goes through Kueue where the
environment uses it: a workload without the queue label gets the team's ``default`` LocalQueue.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from gke_accel.workloads.lint._model import EnvironmentPlan, TeamSpec, queue_plan_of
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.placement import accelerator_of, place
from gke_accel.workloads.lint.scheduling import admission_tolerations, selector_mismatch, tolerates
from gke_accel.workloads.manifests import Obj, as_dict, as_list
from gke_accel.workloads.nodes import PoolNodes


@dataclass(frozen=True)
class Admitted:
    """The pod as Kueue lets it out on one flavor, and that flavor's pools."""

    flavor: str
    pod: Obj
    pools: tuple[str, ...]


def _admitted_on(pod: Obj, labels: dict[str, str], tolerations: list[Obj]) -> Obj:
    out = dict(pod)
    out["nodeSelector"] = {**{str(k): str(v) for k, v in as_dict(pod.get("nodeSelector")).items()}, **labels}
    if tolerations:
        out["tolerations"] = [*as_list(pod.get("tolerations")), *tolerations]
    return out


def _own_keys(pod: Obj, labels: dict[str, str]) -> Obj:
    """The pod's node constraints on the flavor's own label keys only (Kueue's ``flavorSelector``)."""
    selector = {str(k): v for k, v in as_dict(pod.get("nodeSelector")).items() if str(k) in labels}
    return {"nodeSelector": selector}


def flavors_for(
    plan: EnvironmentPlan, owner: TeamSpec | None, pod: Obj, requests: dict[str, Decimal]
) -> tuple[list[Admitted], list[str]] | None:
    """The flavors Kueue may admit the pod on (with the pod as admitted) and why each other flavor of
    its resource is out; None when Kueue does not admit it (no queues, not a team, CPU-only)."""
    queues = queue_plan_of(plan)
    accel = accelerator_of(requests)
    if queues is None or owner is None or accel is None:
        return None
    team = next((t for t in queues.teams if t.team == owner.name), None)
    if team is None:
        return None
    ok: list[Admitted] = []
    why: list[str] = []
    own = [*as_list(pod.get("tolerations")), *admission_tolerations(pod)]
    for flavor in queues.flavors:
        if flavor.resource != accel:
            continue
        labels = dict(flavor.node_labels)
        taints = [t for t in flavor.node_taints if t.effect in ("NoSchedule", "NoExecute")]
        added = [t.toleration() for t in flavor.tolerations]
        untolerated = [t for t in taints if not tolerates([*own, *added], t)]
        if team.flavor_ceilings.get(flavor.name, 0) <= 0:
            why.append(f"{flavor.name}: team {owner.name} has no quota there")
        elif untolerated:
            why.append(f"{flavor.name}: untolerated taint {untolerated[0].key}={untolerated[0].value}")
        elif mismatch := selector_mismatch(_own_keys(pod, labels), labels):
            why.append(f"{flavor.name}: {mismatch[0]}")
        else:
            ok.append(Admitted(flavor.name, _admitted_on(pod, labels, added), flavor.pools))
    return ok, why


def place_admitted(
    admitted: list[Admitted], refused: list[str], owner: TeamSpec, path: str, requests: dict[str, Decimal],
    pools: list[PoolNodes],
) -> tuple[list[PoolNodes], list[Finding]]:  # fmt: skip
    """The pools the pod runs on over every flavor Kueue may admit it on, or the findings of the first
    flavor's placement (or that no flavor admits it)."""
    if not admitted:
        return [], [
            Finding(
                "flavor",
                "error",
                path,
                f"Kueue admits it on no flavor of team {owner.name}'s ClusterQueue ({'; '.join(refused)}): "
                "it stays pending",
                "select and tolerate the pools of a flavor the team has quota on (gke-accel workload new writes both)",
            )
        ]
    fitting: list[PoolNodes] = []
    first: list[Finding] | None = None
    stuck: list[str] = []
    for a in admitted:
        on, why = place(a.pod, path, requests, [p for p in pools if p.plan.name in a.pools])
        fitting += [p for p in on if p not in fitting]
        first = why if first is None else first
        if not on:
            stuck.append(a.flavor)
    if not fitting:
        return [], first or []
    if stuck:  # Kueue picks a flavor by order and quota, not by where the pod fits
        return fitting, [
            Finding(
                "flavor",
                "error",
                path,
                f"Kueue may admit it on flavor {', '.join(stuck)} of team {owner.name}'s ClusterQueue, where it "
                f"fits no node (it would hold that quota and stay unschedulable); it fits only on "
                f"{', '.join(p.name for p in fitting)}",
                "select the fitting pools' labels (gke-accel workload new writes them), e.g. gke-accel/gpu-unit",
            )
        ]
    return fitting, []
