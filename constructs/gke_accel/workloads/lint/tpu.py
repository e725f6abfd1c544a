"""TPU rules on one pod template: it selects accelerator and topology, and it takes all chips of a
VM on a multi-host slice (a warning when it leaves chips of a single-host VM idle)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from gke_accel.workloads.lint._model import TPU_ACCELERATOR_LABEL, TPU_RESOURCE, TPU_TOPOLOGY_LABEL
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.scheduling import required_terms
from gke_accel.workloads.manifests import PodGroup, as_dict
from gke_accel.workloads.nodes import PoolNodes

TPU_SELECTORS = (TPU_ACCELERATOR_LABEL, TPU_TOPOLOGY_LABEL)


def _selects_tpu(g: PodGroup) -> bool:
    keys: set[Any] = set(as_dict(g.spec.get("nodeSelector")))
    for term in required_terms(g.spec) or []:
        if isinstance(term, dict):
            keys |= {e.get("key") for e in term.get("matchExpressions") or [] if isinstance(e, dict)}
    return all(k in keys for k in TPU_SELECTORS)


def tpu_findings(g: PodGroup, requests: dict[str, Decimal], pools: list[PoolNodes]) -> list[Finding]:
    chips = requests.get(TPU_RESOURCE)
    if not chips:
        return []
    where = f"{g.path}.containers[*].resources.limits.{TPU_RESOURCE}"
    out = []
    if not _selects_tpu(g):
        out.append(
            Finding(
                "tpu-selectors",
                "warning",
                f"{g.path}.nodeSelector",
                f"TPU pods should select {' and '.join(TPU_SELECTORS)} "
                "(GKE sets up the TPU runtime from them, and they pick the slice shape)",
            )
        )
    for p in pools:
        if p.slice_vms == 1 and chips < p.plan.chips_per_node:
            out.append(
                Finding(
                    "tpu-chips",
                    "warning",
                    where,
                    f"uses {chips:f} of the {p.plan.chips_per_node} chips of a {p.plan.tpu_topology} VM in "
                    f"{p.name}: the others stay idle",
                )
            )
    multi = [p for p in pools if p.slice_vms > 1]
    if multi and chips != multi[0].plan.chips_per_node:
        per_vm = multi[0].plan.chips_per_node
        out.append(
            Finding(
                "tpu-chips",
                "error",
                where,
                f"is {chips:f}: on a multi-host slice each pod takes all {per_vm} chips of its VM",
                f"{TPU_RESOURCE}: {per_vm}",
            )
        )
    return out
