"""The queue table that ``gke-accel synth`` prints next to the capacity table: per team its
LocalQueue, nominal quota, borrowing and lending limits per flavor, the ResourceQuota ceiling, and its
cpu/memory quota (derived from those chips unless set: model/teams/compute.py)."""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan
from gke_accel.model.queues.install import JOBSET, KUEUE
from gke_accel.model.queues.plan import QueuePlan
from gke_accel.tables import render_table

SHORT = {"google.com/tpu": "tpu", "nvidia.com/gpu": "gpu"}


def queue_rows(plan: QueuePlan) -> list[list[object]]:
    rows: list[list[object]] = []
    for team in plan.teams:
        nominal = ", ".join(f"{q.flavor} {q.nominal}" for q in team.quotas if q.nominal) or "-"
        borrow = ", ".join(
            f"{q.flavor} {'idle' if q.borrowing_limit is None else q.borrowing_limit}" for q in team.quotas
        )
        lend = ", ".join(f"{q.flavor} {q.lending_limit}" for q in team.quotas if q.lending_limit is not None)
        ceiling = ", ".join(f"{SHORT[r]} {n}" for r, n in sorted(team.ceilings.items()) if n)
        rows.append(
            [
                team.team,
                f"{team.namespace}/{team.local_queue}",
                nominal,
                borrow or "-",
                lend or "all",
                "yes" if team.preempt_when_borrowing else "-",
                ceiling or "-",
                f"{team.cpu} / {team.memory_gib}Gi" + ("" if team.compute.derived else " (set)"),
            ]
        )
    return rows


def synth_section(plan: EnvironmentPlan) -> str:
    """Text printed by ``gke-accel synth`` for one environment ("" without Kueue)."""
    queues = plan.queues
    if queues is None:
        return ""
    title = f"  queues (Kueue {KUEUE.version}, JobSet {JOBSET.version}; cohort {queues.cohort}):"
    table = render_table(
        [
            "team",
            "local queue",
            "nominal",
            "may borrow",
            "lends",
            "preempts to borrow",
            "ResourceQuota ceiling",
            "cpu / memory",
        ],
        queue_rows(queues),
        title,
    )
    flavors = [
        f"  flavor {f.name}: {f.chips_max} {SHORT[f.resource]} max, pools {', '.join(f.pools)}"
        + (" (ProvisioningRequest admission check)" if f.provisioning == "queued" else "")
        for f in queues.flavors
    ]
    return "\n".join([table, *flavors])
