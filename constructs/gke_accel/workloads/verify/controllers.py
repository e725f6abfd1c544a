"""The controllers the environment installs (Kueue and JobSet, where it uses Kueue): their
Deployments are ready, and their pods run on the system pool, never on accelerator nodes.

Deployment names are the charts' defaults for the release names the stack uses (``kueue``, ``jobset``):
``<release>-controller-manager`` (kueue charts/kueue/templates/manager/manager.yaml,
jobset charts/jobset/templates/manager/manager.yaml)."""

from __future__ import annotations

from gke_accel.workloads.verify._model import JOBSET, KUEUE, NODEPOOL_LABEL, EnvironmentPlan, uses_kueue
from gke_accel.workloads.verify.state import CheckRow, ClusterState, Obj


def controller_deployments(plan: EnvironmentPlan) -> list[tuple[str, str]]:
    """(namespace, Deployment name) of every controller the plan installs."""
    if not uses_kueue(plan.spec):
        return []
    return [(r.namespace, f"{r.name}-controller-manager") for r in (KUEUE, JOBSET)]


def _owned_by(pod: Obj, deployment: str) -> bool:
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("kind") == "ReplicaSet" and str(ref.get("name", "")).startswith(f"{deployment}-"):
            return True
    return False


def controller_rows(plan: EnvironmentPlan, state: ClusterState) -> list[CheckRow]:
    system = plan.cluster.system_pool.name
    pool_of = {
        (n.get("metadata") or {}).get("name"): ((n.get("metadata") or {}).get("labels") or {}).get(NODEPOOL_LABEL)
        for n in state.nodes
    }
    rows = []
    for ns, name in controller_deployments(plan):
        subject = f"{ns}/{name}"
        live = state.get("Deployment", ns, name)
        if live is None:
            rows.append(CheckRow("controller", subject, "FAIL", "missing"))
            continue
        want = int((live.get("spec") or {}).get("replicas", 1))
        ready = int((live.get("status") or {}).get("readyReplicas") or 0)
        problems = [] if want >= 1 and ready >= want else [f"{ready}/{want} replicas ready"]
        pods = [p for p in state.pods if (p.get("metadata") or {}).get("namespace") == ns and _owned_by(p, name)]
        elsewhere = sorted(
            f"{(p.get('metadata') or {}).get('name')} on {node} (pool {pool_of.get(node) or '?'})"
            for p in pods
            if (node := (p.get("spec") or {}).get("nodeName")) and pool_of.get(node) != system
        )
        if elsewhere:
            problems.append(f"not on the system pool {system}: {', '.join(elsewhere)}")
        detail = "; ".join(problems) or f"{ready}/{want} ready on the system pool {system}"
        rows.append(CheckRow("controller", subject, "FAIL" if problems else "ok", detail))
    return rows
