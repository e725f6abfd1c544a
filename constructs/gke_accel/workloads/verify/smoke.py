"""``verify --smoke``: one tiny pod per accelerator kind, built like ``workload new`` builds pods
(selectors, tolerations, chips from the plan), in a team namespace whose quota allows it; reports
whether it was scheduled, then deletes it."""

from __future__ import annotations

import time
from typing import Any

from gke_accel.workloads.generate.pod import pod_template
from gke_accel.workloads.lint.queues import QUEUE_LABEL, team_queue
from gke_accel.workloads.lint.team import teams_by_namespace
from gke_accel.workloads.nodes import PoolNodes, pool_nodes
from gke_accel.workloads.verify._model import EnvironmentPlan, accelerator_key
from gke_accel.workloads.verify.check import CheckRow

SMOKE_IMAGE = "registry.k8s.io/pause:3.10"
Obj = dict[str, Any]


def smoke_pods(plan: EnvironmentPlan) -> tuple[list[tuple[PoolNodes, Obj]], list[CheckRow]]:
    """(pool, pod) per accelerator kind, and rows for kinds no team may use."""
    from gke_accel.catalog import load_catalog

    catalog = load_catalog()
    pods, rows = [], []
    pcs = plan.spec.platform.priority_classes
    for kind in ("tpu", "gpu"):
        pools = [p for p in pool_nodes(plan, include_system=False) if p.plan.kind == kind]
        if not pools:
            continue
        pool = pools[0]
        chips = pool.plan.chips_per_node if kind == "tpu" else 1
        owner = None
        for ns, team in teams_by_namespace(plan).items():
            keys = {accelerator_key(n, catalog) for n, amount in team.accelerators.items() if amount >= chips}
            if (pool.plan.resource, pool.plan.unit) in keys:
                owner = (ns, team)
                break
        if owner is None:
            rows.append(
                CheckRow("smoke", pool.name, "warn", f"no team has a quota for {chips} x {pool.plan.accelerator}")
            )
            continue
        ns, team = owner
        allowed = list(team.priority_classes) or [pcs.batch.name]
        priority = pcs.batch.name if pcs.batch.name in allowed else allowed[0]
        queue = team_queue(plan, team)
        template = pod_template(
            name="gke-accel-smoke",
            pool=pool,
            chips=chips,
            image=SMOKE_IMAGE,
            command=[],
            priority=priority,
            bucket=None,
            team=team.name,
            cpu="100m",
            memory="64Mi",
            restart="Never",
            env=[],
            labels={QUEUE_LABEL: queue} if queue else {},
        )
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {**template["metadata"], "generateName": f"gke-accel-smoke-{kind}-", "namespace": ns},
            "spec": template["spec"],
        }
        pods.append((pool, pod))
    return pods, rows


def run_smoke(api_client: Any, plan: EnvironmentPlan, timeout: float) -> list[CheckRow]:
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    core = client.CoreV1Api(api_client)
    pods, rows = smoke_pods(plan)
    for pool, pod in pods:
        ns = pod["metadata"]["namespace"]
        try:
            created = core.create_namespaced_pod(ns, pod)
        except ApiException as exc:
            rows.append(CheckRow("smoke", pool.name, "FAIL", f"pod refused: {exc.status} {exc.reason}"))
            continue
        name = created.metadata.name
        status, detail = "FAIL", f"not scheduled within {timeout:g}s"
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                live = core.read_namespaced_pod(name, ns)
                cond = {c.type: c for c in (live.status.conditions or [])}
                scheduled = cond.get("PodScheduled")
                if scheduled is not None and scheduled.status == "True":
                    status, detail = "ok", f"scheduled on {live.spec.node_name}"
                    break
                if scheduled is not None and scheduled.reason == "Unschedulable":
                    detail = f"unschedulable: {scheduled.message}"
                time.sleep(1)
        finally:
            core.delete_namespaced_pod(name, ns, grace_period_seconds=0)
        rows.append(CheckRow("smoke", pool.name, status, detail))  # type: ignore[arg-type]
    return rows
