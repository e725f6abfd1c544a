"""The ``dws`` rule: what a workload on Dynamic Workload Scheduler capacity needs, explained.

GKE "Run a large-scale workload with flex-start with queued provisioning" and "About GPU obtainability
with flex-start" (read 2026-12-02): queued-provisioning nodes are created only for a ProvisioningRequest,
which Kueue's ProvisioningRequest admission check makes for a workload in a LocalQueue; the request's
``maxRunDurationSeconds`` (at most 7 days, the default) comes from the ProvisioningRequestConfig or the
job's ``provreq.kueue.x-k8s.io/maxRunDurationSeconds`` annotation; flex-start VMs (with or without a
queue) run for at most 7 days, so a long-running Deployment there is cut off.
"""

from __future__ import annotations

from gke_accel.workloads.lint._model import EnvironmentPlan
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.queues import QUEUE_LABEL
from gke_accel.workloads.manifests import Workload, as_dict
from gke_accel.workloads.nodes import PoolNodes

MAX_RUN_ANNOTATION = "provreq.kueue.x-k8s.io/maxRunDurationSeconds"
MAX_RUN_SECONDS = 7 * 24 * 3600


def dws_findings(plan: EnvironmentPlan, wl: Workload, pools: list[PoolNodes], defaulted: bool = False) -> list[Finding]:
    """``defaulted``: the workload is in a team namespace with the platform's ``default`` LocalQueue,
    which Kueue puts a workload in when it has no queue label (W4e: it then runs)."""
    if not pools:
        return []
    out: list[Finding] = []
    queued = [p for p in pools if p.plan.queued]
    flex = [p for p in pools if p.plan.flex_start or p.plan.queued]
    names = ", ".join(p.name for p in queued)
    if queued and len(queued) == len(pools) and QUEUE_LABEL not in wl.labels and not defaulted:
        out.append(
            Finding(
                "dws",
                "error",
                f"metadata.labels.{QUEUE_LABEL}",
                f"lands only on queued-provisioning pools ({names}): GKE creates their nodes only for a "
                "ProvisioningRequest, which Kueue makes for a workload in a LocalQueue; without the queue label "
                "the pods stay Pending for ever",
                f"{QUEUE_LABEL}: <the team's LocalQueue>",
            )
        )
    value = as_dict(as_dict(wl.obj.get("metadata")).get("annotations")).get(MAX_RUN_ANNOTATION)
    if value is not None:
        path = f"metadata.annotations.{MAX_RUN_ANNOTATION}"
        seconds = int(value) if str(value).isdigit() else None
        if seconds is None or not 0 < seconds <= MAX_RUN_SECONDS:
            out.append(
                Finding(
                    "dws",
                    "error",
                    path,
                    f"{value!r} is not a run duration GKE accepts",
                    f"a quoted whole number of seconds, 1 to {MAX_RUN_SECONDS} (7 days)",
                )
            )
        elif not queued:
            out.append(
                Finding(
                    "dws",
                    "warning",
                    path,
                    "is only read for queued provisioning (a ProvisioningRequest); "
                    "this workload's pools are not queued",
                    "remove it",
                )
            )
    if flex and len(flex) == len(pools) and wl.kind in ("Deployment", "StatefulSet"):
        out.append(
            Finding(
                "dws",
                "warning",
                "spec",
                f"a long-running {wl.kind} only on flex-start/queued pools ({', '.join(p.name for p in flex)}): "
                "GKE deletes flex-start VMs after their run duration (at most 7 days), so it is cut off",
                "serve from on-demand, reservation or Spot pools",
            )
        )
    return out
