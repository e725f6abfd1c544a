"""The rule matching the Kueue priority fence (``model.platform.fences``): where the environment uses
Kueue, the ``kueue.x-k8s.io/priority-class`` label (on the workload and its pod templates) must name
the same class as the pods' ``priorityClassName`` (no name: the default, training). The admission
policy refuses the workload otherwise. Which classes a team may use is the ``priority`` rule's job."""

from __future__ import annotations

from gke_accel.workloads.lint._model import PRIORITY_LABEL, EnvironmentPlan, uses_kueue
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Workload


def priority_label_findings(plan: EnvironmentPlan, wl: Workload) -> list[Finding]:
    if not uses_kueue(plan.spec):
        return []
    default = plan.spec.platform.priority_classes.training.name
    out = []
    for g in wl.groups:
        cls = str(g.spec.get("priorityClassName") or default)
        for where, labels in (
            ("metadata.labels", wl.labels),
            (g.path.removesuffix(".spec") + ".metadata.labels", g.labels),
        ):
            label = labels.get(PRIORITY_LABEL)
            if label is not None and label != cls:
                named = "" if g.spec.get("priorityClassName") else f" (none set: the default {default!r})"
                out.append(
                    Finding(
                        "priority-label",
                        "error",
                        f"{where}.{PRIORITY_LABEL}",
                        f"is {label!r}, but the pods' priorityClassName is {cls!r}{named}: the admission policy "
                        "refuses it (Kueue orders and preempts by the label, the scheduler by the class)",
                        f"{PRIORITY_LABEL}: {cls}, or priorityClassName: {label}",
                    )
                )
    return list(dict.fromkeys(out))
