"""The ComputeClass (``cloud.google.com/v1``) of each capacity ladder, as a plain manifest.

One ``priorities[]`` rule per rung, in the ladder's order, each a ``nodepools`` rule naming the rung's
Standard node pools (GKE: a ``nodepools`` rule takes no other field, and lists pools in no order, so a
fallback order needs one rule per rung). ``whenUnsatisfiable`` is always written (its default changed
in GKE 1.33); ``activeMigration.optimizeRulePriority`` where the ladder turns it on;
``nodePoolAutoCreation`` off: the ladder's pools are the ones gke-accel declares.
Source: GKE "About custom ComputeClasses" and the ComputeClass CRD reference (read 2026-12-02).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_accel.model.capacity.ladder import LadderPlan

API = "cloud.google.com/v1"
MANAGED_BY = {"app.kubernetes.io/managed-by": "gke-accel"}


def compute_class(ladder: LadderPlan) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priorities": [{"nodepools": list(rung.pools)} for rung in ladder.rungs],
        "whenUnsatisfiable": ladder.when_unsatisfiable,
        "nodePoolAutoCreation": {"enabled": False},
    }
    if ladder.optimize_rule_priority:
        spec["activeMigration"] = {"optimizeRulePriority": True}
    return {
        "apiVersion": API,
        "kind": "ComputeClass",
        "metadata": {"name": ladder.class_name, "labels": dict(MANAGED_BY)},
        "spec": spec,
    }


def compute_classes(ladders: Sequence[LadderPlan]) -> list[dict[str, Any]]:
    return [compute_class(ladder) for ladder in ladders]
