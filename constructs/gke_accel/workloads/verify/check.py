"""Compare a live cluster (``ClusterState``) with the environment plan: every pool's nodes carry
the labels, taints and allocatable accelerators we expect (pools at zero nodes are reported as
such); the driver installer is ready where it must run; team namespaces, quotas, limit ranges,
and every object the environment creates is stored as declared (``compare``); the controllers it
installs are ready on the system pool (``controllers``)."""

from __future__ import annotations

from gke_accel.workloads.lint.scheduling import selector_mismatch
from gke_accel.workloads.nodes import PoolNodes, pool_nodes
from gke_accel.workloads.quantity import parse_quantity
from gke_accel.workloads.verify._model import NODEPOOL_LABEL, EnvironmentPlan, cluster_objects
from gke_accel.workloads.verify.compare import object_drift
from gke_accel.workloads.verify.controllers import controller_rows
from gke_accel.workloads.verify.state import CheckRow, ClusterState, Obj, Status, VerifyReport

__all__ = ["CheckRow", "VerifyReport", "expected_objects", "verify_state"]


def _node_name(node: Obj) -> str:
    return str((node.get("metadata") or {}).get("name", "?"))


def _node_problems(node: Obj, pool: PoolNodes) -> list[str]:
    """What a node lacks of its pool's documented facts: labels ``node_shape`` marks inferred (a specific
    reservation's name, a queued node's flex-start label: UNVERIFIED in tests/fixtures/gke-nodes) are not
    checked, so a node GKE labels otherwise is not reported as drift (code review R8)."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    expected = pool.shape.documented_labels()
    problems = [
        f"label {k}={labels.get(k, '(missing)')}, expected {v}" for k, v in expected.items() if labels.get(k) != v
    ]
    have = {
        (t.get("key"), str(t.get("value", "")), t.get("effect")) for t in (node.get("spec") or {}).get("taints") or []
    }
    problems += [
        f"taint {t.key}={t.value}:{t.effect} missing" for t in pool.taints if (t.key, t.value, t.effect) not in have
    ]
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    for resource, want in pool.shape.extended_resources().items():
        if parse_quantity(allocatable.get(resource, 0)) != parse_quantity(want):
            problems.append(f"allocatable {resource}={allocatable.get(resource, '(none)')}, expected {want}")
    return problems


def _pools(plan: EnvironmentPlan, state: ClusterState) -> list[CheckRow]:
    rows = []
    pools = pool_nodes(plan)
    by_pool: dict[str, list[Obj]] = {}
    for node in state.nodes:
        by_pool.setdefault(((node.get("metadata") or {}).get("labels") or {}).get(NODEPOOL_LABEL, ""), []).append(node)
    for pool in pools:
        nodes = by_pool.pop(pool.name, [])
        low, high = pool.plan.node_bounds()
        if not nodes:
            status: Status = "info" if low == 0 else "warn"
            rows.append(CheckRow("pool", pool.name, status, f"0 nodes (scaled to zero; min {low}, max {high})"))
            continue
        bad = {(_node_name(n)): _node_problems(n, pool) for n in nodes}
        bad = {n: p for n, p in bad.items() if p}
        if bad:
            rows += [CheckRow("node", f"{pool.name}/{n}", "FAIL", "; ".join(p)) for n, p in sorted(bad.items())]
        count = f"{len(nodes)} node(s) (min {low}, max {high})"
        rows.append(
            CheckRow(
                "pool",
                pool.name,
                "FAIL" if bad else "ok",
                f"{count}; {len(bad)} drifted" if bad else f"{count}; labels, taints, allocatable ok",
            )
        )
    for name, nodes in sorted(by_pool.items()):
        rows.append(
            CheckRow(
                "pool", name or "(no nodepool label)", "warn", f"{len(nodes)} node(s) of a pool the plan does not have"
            )
        )
    return rows


def _ready(pod: Obj) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _driver(plan: EnvironmentPlan, state: ClusterState, manifests: list[Obj]) -> list[CheckRow]:
    rows = []
    for ds in (m for m in manifests if m["kind"] == "DaemonSet"):
        name = ds["metadata"]["name"]
        selector = ds["spec"]["selector"]["matchLabels"]
        pod_spec = ds["spec"]["template"]["spec"]
        ready_on = {
            (p.get("spec") or {}).get("nodeName")
            for p in state.pods
            if all(((p.get("metadata") or {}).get("labels") or {}).get(k) == v for k, v in selector.items())
            and _ready(p)
        }
        needs = [
            n for n in state.nodes if not selector_mismatch(pod_spec, (n.get("metadata") or {}).get("labels") or {})
        ]
        missing = sorted(_node_name(n) for n in needs if _node_name(n) not in ready_on)
        if missing:
            rows.append(CheckRow("driver", name, "FAIL", f"no ready installer pod on {', '.join(missing)}"))
        else:
            rows.append(CheckRow("driver", name, "ok", f"ready on {len(needs)} node(s) that need it"))
    return rows


def expected_objects(plan: EnvironmentPlan) -> list[Obj]:
    """Every object the environment creates in its cluster (``model.environment.objects``, what the
    stack installs and ``gke-accel manifests`` writes): the platform's, the priority fence, the
    capacity ladders' ComputeClasses and, with Kueue, the queue objects (at the API version the
    stack writes, ``model.queues.manifests.API``)."""
    return cluster_objects(plan).all()


def _objects(state: ClusterState, manifests: list[Obj]) -> list[CheckRow]:
    rows = []
    for m in manifests:
        kind = m["kind"]
        ns, name = m["metadata"].get("namespace", ""), m["metadata"]["name"]
        area, subject = ("namespace" if kind == "Namespace" else kind), (f"{ns}/{name}" if ns else name)
        live = state.get(kind, ns, name)
        if live is None:
            served = f" ({m['apiVersion']} {kind} is not served: is its controller installed?)"
            rows.append(CheckRow(area, subject, "FAIL", "missing" + (served if kind in state.unserved else "")))
            continue
        problems = object_drift(m, live)
        rows.append(CheckRow(area, subject, "FAIL" if problems else "ok", "; ".join(problems) or "matches the plan"))
    return rows


def verify_state(plan: EnvironmentPlan, state: ClusterState) -> VerifyReport:
    manifests = expected_objects(plan)
    rows = _pools(plan, state) + _driver(plan, state, manifests) + _objects(state, manifests)
    return VerifyReport(plan.name, tuple(rows + controller_rows(plan, state)))
