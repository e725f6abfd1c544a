"""The per-environment pool summary printed by ``validate`` and ``synth``."""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan, NodePoolPlan
from gke_accel.tables import MAX_WIDTH, render_table


def consumption_label(pool: NodePoolPlan) -> str:
    if pool.consumption == "reservation" and pool.reservation is not None:
        return "reservation" + (f" {pool.reservation.name}" if pool.reservation.name else " (any)")
    return pool.consumption


def pool_rows(plan: EnvironmentPlan) -> list[list[object]]:
    rows: list[list[object]] = []
    for pool in (plan.cluster.system_pool, *plan.pools):
        low, high = pool.node_bounds()
        if pool.kind == "tpu":
            accel = f"{pool.tpu_generation} {pool.tpu_topology} ({pool.slice_name})"
            per_node = f"{pool.chips_per_node} chips"
        elif pool.kind == "gpu":
            accel = pool.accelerator
            per_node = f"{pool.chips_per_node} GPU" + ("s" if pool.chips_per_node != 1 else "")
        else:
            accel, per_node = "-", "-"
        rows.append(
            [
                pool.name,
                pool.kind,
                accel,
                pool.machine_type,
                per_node,
                f"{low}-{high}",
                consumption_label(pool),
                ", ".join(pool.zones) or "(cluster)",
            ]
        )
    return rows


def environment_summary(plan: EnvironmentPlan) -> str:
    c = plan.cluster.spec
    title = (
        f"{plan.name}: cluster {c.name} in {c.location} ({'regional' if plan.cluster.regional else 'zonal'}), "
        f"project {plan.spec.project_id}\n  channel {c.release_channel}, "
        f"deletion protection {'on' if c.deletion_protection else 'off'}"
    )
    headers = ["pool", "kind", "accelerator", "machine", "per node", "nodes", "consumption", "zones"]
    return render_table(headers, pool_rows(plan), title, max_width=MAX_WIDTH)
