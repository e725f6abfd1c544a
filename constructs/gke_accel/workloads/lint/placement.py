"""Where a pod template can go: the pools whose nodes it selects, tolerates and fits on, and when
none, the finding that says why (wrong selector, missing toleration, too many chips or GPUs)."""

from __future__ import annotations

from decimal import Decimal

from gke_accel.workloads.lint._model import GPU_RESOURCE, TPU_RESOURCE
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.scheduling import PoolCheck, check_pool, toleration_yaml
from gke_accel.workloads.manifests import Obj, as_dict
from gke_accel.workloads.nodes import PoolNodes


def accelerator_of(requests: dict[str, Decimal]) -> str | None:
    for name in (TPU_RESOURCE, GPU_RESOURCE):
        if requests.get(name, Decimal(0)) > 0:
            return name
    return None


def _no_pool(pod: Obj, path: str, checks: list[PoolCheck]) -> Finding:
    selector = as_dict(pod.get("nodeSelector"))
    for key, value in selector.items():
        offered = sorted({c.pool.labels[str(key)] for c in checks if str(key) in c.pool.labels})
        if str(value) not in offered:
            where = ", ".join(
                f"{v} ({', '.join(c.pool.name for c in checks if c.pool.labels.get(str(key)) == v)})" for v in offered
            )
            return Finding(
                "no-pool",
                "error",
                f"{path}.nodeSelector.{key}",
                f"{value!r} matches no pool" + (f"; pools offer {where}" if where else f"; no pool has label {key}"),
                f"select one of: {', '.join(offered)}" if offered else f"remove {key}",
            )
    reasons = "; ".join(f"{c.pool.name}: {', '.join(c.selector)}" for c in checks)
    where = "affinity" if pod.get("affinity") else "nodeSelector"
    return Finding("no-pool", "error", f"{path}.{where}", f"together the node selectors match no pool ({reasons})")


def _resources(path: str, accel: str | None, requests: dict[str, Decimal], checks: list[PoolCheck]) -> Finding:
    if accel is not None and not any(requests[accel] <= c.pool.allocatable.get(accel, Decimal(0)) for c in checks):
        amount = requests[accel]
        per_node = max((c.pool.allocatable.get(accel, Decimal(0)) for c in checks), default=Decimal(0))
        pools = ", ".join(c.pool.describe() for c in checks)
        rule = "tpu-chips" if accel == TPU_RESOURCE else "gpu-count"
        unit = "TPU chips" if accel == TPU_RESOURCE else "GPUs"
        return Finding(
            rule,
            "error",
            f"{path}.containers[*].resources.limits.{accel}",
            f"asks for {amount:f} {unit} per pod, but a node of the selected pools has at most {per_node:f} ({pools})",
            f"request at most {per_node:f} per pod and run more pods" if per_node else "add a pool with them",
        )
    detail = "; ".join(f"{c.pool.name}: {', '.join(c.resources)}" for c in checks)
    return Finding("node-size", "error", f"{path}.containers[*].resources", f"the pod fits no node ({detail})")


def place(
    pod: Obj, path: str, requests: dict[str, Decimal], pools: list[PoolNodes]
) -> tuple[list[PoolNodes], list[Finding]]:
    """The pools the pod fits on, or the finding that explains why it fits none."""
    accel = accelerator_of(requests)
    # The system pool is for GKE's and the platform's controllers: never a place for a team's pod, so
    # never advice to tolerate its taint (code review R3, newcomer N9).
    pools = [p for p in pools if p.plan.kind != "system"]
    if accel is not None:
        kind = "tpu" if accel == TPU_RESOURCE else "gpu"
        pools = [p for p in pools if p.plan.kind == kind]
        if not pools:
            return [], [
                Finding("no-pool", "error", path, f"requests {accel}, but the environment has no {kind.upper()} pool")
            ]
    elif not any(p.plan.kind == "cpu" for p in pools):
        return [], [
            Finding(
                "no-pool",
                "error",
                path,
                "asks for no accelerator, and this environment has no node for a CPU-only pod: the system pool is "
                "reserved for GKE's and the platform's controllers and every accelerator pool is tainted",
                "add a cpu_pools entry to the environment's config (docs/configuration.md), or request an accelerator",
            )
        ]
    checks = [check_pool(pod, requests, p) for p in pools]
    fitting = [c.pool for c in checks if c.fits]
    if fitting:
        return fitting, []
    selected = [c for c in checks if not c.selector]
    if not selected:
        return [], [_no_pool(pod, path, checks)]
    tolerated = [c for c in selected if not c.taints]
    if not tolerated:
        best = min(selected, key=lambda c: len(c.taints))
        missing = ", ".join(f"{t.key}={t.value}:{t.effect}" for t in best.taints)
        tolerations = Finding(
            "tolerations",
            "error",
            f"{path}.tolerations",
            f"the selected pools are tainted and the pod does not tolerate {missing} (pool {best.pool.name})",
            "add " + "; ".join(toleration_yaml(t) for t in best.taints),
        )
        # Independent of the taints: a pod too big for every selected pool stays unschedulable once tolerated.
        too_big = [_resources(path, accel, requests, selected)] if all(c.resources for c in selected) else []
        return [], [tolerations, *too_big]
    return [], [_resources(path, accel, requests, tolerated)]
