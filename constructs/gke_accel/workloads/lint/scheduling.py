"""What the scheduler checks, against the nodes of the environment's pools: node selectors, required
node affinity, taints and tolerations, and resource requests against allocatable."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gke_accel.workloads.lint._model import COMPUTE_CLASS_LABEL, NodeTaint
from gke_accel.workloads.manifests import Obj, as_dict, as_list, containers, init_containers
from gke_accel.workloads.nodes import PoolNodes
from gke_accel.workloads.quantity import parse_quantity

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def pod_requests(pod: Obj) -> dict[str, Decimal]:
    """Effective requests of a pod: the sum over containers and native sidecars (a limit stands in for a
    missing request), or what the init containers need at once when that is bigger."""

    def one(c: Obj) -> dict[str, Decimal]:
        res = as_dict(c.get("resources"))
        out: dict[str, Decimal] = {}
        for part in ("limits", "requests"):  # requests win over limits
            values = as_dict(res.get(part))
            for name, value in values.items():
                q = parse_quantity(value)
                if q is not None:
                    out[str(name)] = q
        return out

    def add(a: dict[str, Decimal], b: dict[str, Decimal]) -> dict[str, Decimal]:
        return {k: a.get(k, Decimal(0)) + b.get(k, Decimal(0)) for k in {*a, *b}}

    # Kubernetes "Sidecar containers" (resource sharing): an init container with restartPolicy Always keeps
    # running, so it adds to every later init container and to the app containers (W4b)
    total: dict[str, Decimal] = {}
    for c in containers(pod):
        total = add(total, one(c))
    sidecars: dict[str, Decimal] = {}
    peak: dict[str, Decimal] = {}
    for c in init_containers(pod):
        if c.get("restartPolicy") == "Always":
            sidecars = add(sidecars, one(c))
            running = sidecars
        else:
            running = add(sidecars, one(c))
        peak = {k: max(peak.get(k, Decimal(0)), running.get(k, Decimal(0))) for k in {*peak, *running}}
    total = add(total, sidecars)
    return {k: max(total.get(k, Decimal(0)), peak.get(k, Decimal(0))) for k in {*total, *peak}}


def _match_expression(expr: Any, labels: dict[str, str]) -> bool:
    if not isinstance(expr, dict):
        return False
    key, op = str(expr.get("key", "")), expr.get("operator")
    values = [str(v) for v in expr.get("values") or []]
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and values:
        try:
            left, right = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return left > right if op == "Gt" else left < right
    return False


def required_terms(pod: Obj) -> list[Any] | None:
    affinity = as_dict(pod.get("affinity"))
    node = as_dict(affinity.get("nodeAffinity"))
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        return None
    terms = required.get("nodeSelectorTerms")
    return terms if isinstance(terms, list) else []


def selector_mismatch(pod: Obj, labels: dict[str, str]) -> list[str]:
    """Why the pod's nodeSelector / required node affinity rejects nodes with these labels."""
    reasons = []
    selector = as_dict(pod.get("nodeSelector"))
    for key, value in selector.items():
        have = labels.get(str(key))
        if have != str(value):
            reasons.append(f"nodeSelector {key}={value} (nodes have {have if have is not None else 'no such label'})")
    terms = required_terms(pod)
    if terms is not None:
        matched = any(
            isinstance(t, dict) and all(_match_expression(e, labels) for e in t.get("matchExpressions") or [])
            for t in terms
        )
        if not matched:
            reasons.append("required node affinity matches none of its nodeSelectorTerms")
    return reasons


def tolerates(tolerations: list[Any], taint: NodeTaint) -> bool:
    for t in tolerations:
        if not isinstance(t, dict):
            continue
        op = t.get("operator", "Equal")
        key = t.get("key")
        if key in (None, "") and op != "Exists":
            continue
        if key not in (None, "") and key != taint.key:
            continue
        if op == "Equal" and str(t.get("value", "")) != taint.value:
            continue
        if t.get("effect") not in (None, "", taint.effect):
            continue
        return True
    return False


def is_extended_resource(name: str) -> bool:
    """Kubernetes' IsExtendedResourceName: a name with a domain outside kubernetes.io (not cpu, memory,
    hugepages-*, ephemeral-storage) and not a quota key (``requests.*``)."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def admission_tolerations(pod: Obj) -> list[Obj]:
    """What GKE's ExtendedResourceToleration admission plugin adds ("Run GPUs in Standard node pools",
    cloud.google.com/kubernetes-engine/docs/how-to/gpus): for every extended resource a container or init
    container names (in requests, or in limits, which default the requests), whatever the quantity, a
    toleration {key: <resource>, operator: Exists, effect: NoSchedule}. Observed on kube-apiserver
    1.33 (tests/e2e/test_quota_limits.py)."""
    names: set[str] = set()
    for c in (*containers(pod), *init_containers(pod)):
        res = as_dict(c.get("resources"))
        for part in ("requests", "limits"):
            names.update(str(n) for n in as_dict(res.get(part)) if is_extended_resource(str(n)))
    added = [{"key": n, "operator": "Exists", "effect": "NoSchedule"} for n in sorted(names)]
    # GKE ("About custom ComputeClasses"): a pod selecting a ComputeClass is given the class taint's toleration
    chosen = as_dict(pod.get("nodeSelector")).get(COMPUTE_CLASS_LABEL)
    if chosen is not None:
        added.append({"key": COMPUTE_CLASS_LABEL, "operator": "Equal", "value": str(chosen), "effect": "NoSchedule"})
    return added


def untolerated(pod: Obj, pool: PoolNodes) -> list[NodeTaint]:
    """Blocking taints of the pool the pod does not tolerate once admitted (its own tolerations plus
    the ones the API server adds)."""
    tolerations = [*as_list(pod.get("tolerations")), *admission_tolerations(pod)]
    return [t for t in pool.taints if t.effect in BLOCKING_EFFECTS and not tolerates(tolerations, t)]


@dataclass
class PoolCheck:
    pool: PoolNodes
    selector: list[str] = field(default_factory=list)
    taints: list[NodeTaint] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return not (self.selector or self.taints or self.resources)


def check_pool(pod: Obj, requests: dict[str, Decimal], pool: PoolNodes) -> PoolCheck:
    check = PoolCheck(pool, selector_mismatch(pod, pool.labels), untolerated(pod, pool))
    for name, amount in requests.items():
        if amount <= 0:
            continue
        have = pool.allocatable.get(name)
        extended = "/" in name and not name.startswith(("hugepages-", "kubernetes.io/"))
        if have is None and not extended:
            continue  # cpu/memory of this machine not known: not checked
        if have is None or amount > have:
            check.resources.append(f"{name} {_show(name, amount)} (a node has {_show(name, have or Decimal(0))})")
    if pool.max_nodes == 0:
        check.resources.append("the pool has no nodes (max 0)")
    return check


def _show(name: str, amount: Decimal) -> str:
    if name in ("memory", "ephemeral-storage"):
        return f"{(amount / 2**30).quantize(Decimal('0.1'))}Gi"
    return f"{amount.normalize():f}"


def toleration_yaml(taint: NodeTaint) -> str:
    t = taint.toleration()
    return f'{{key: {t["key"]}, operator: {t["operator"]}, value: "{t["value"]}", effect: {t["effect"]}}}'
