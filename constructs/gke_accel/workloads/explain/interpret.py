"""Why a job is not running, from the objects as the API server stores them (pure: no client here).

Kueue's Workload conditions (``QuotaReserved``, ``Admitted``, ``Evicted``/``Preempted``, ``Finished``)
say whether the job holds quota; the ClusterQueues' ``status.flavorsReservation`` against their
nominal quota and borrowing limits say whose quota is in use; the pods' ``PodScheduled`` condition
(the scheduler's ``FailedScheduling`` message) says why admitted pods have no node, translated into
the environment's pools with the same rules ``lint`` uses (``selector_mismatch``, ``tolerates``).
Shapes: Kueue v1beta2 and core v1 objects recorded from the e2e tier (tests/fixtures/explain/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from gke_accel.workloads.explain._model import NODEPOOL_LABEL
from gke_accel.workloads.lint.scheduling import selector_mismatch, tolerates
from gke_accel.workloads.nodes import PoolNodes
from gke_accel.workloads.quantity import parse_quantity, show

Obj = dict[str, Any]
State = Literal["not-found", "not-queued", "over-quota", "waiting", "invalid", "preempted", "unschedulable",
                "starting", "running", "finished"]  # fmt: skip
_UID = re.compile(r"\(UID: ([0-9a-f-]+)")
_SHORT = re.compile(r"insufficient unused quota for (\S+) in flavor (\S+), (\S+) more needed")


@dataclass(frozen=True)
class Observed:
    """What explain reads for one job: the job, every Workload and ClusterQueue (for the cohort and the
    preemptor), the namespace's LocalQueues, the job's pods and the nodes."""

    kind: str
    name: str
    namespace: str
    job: Obj | None
    workloads: list[Obj] = field(default_factory=list)
    cluster_queues: list[Obj] = field(default_factory=list)
    local_queues: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)
    nodes: list[Obj] = field(default_factory=list)


@dataclass(frozen=True)
class Explanation:
    job: str
    state: State
    headline: str
    details: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"job": self.job, "state": self.state, "headline": self.headline, "details": list(self.details)}

    def render(self) -> str:
        return "\n".join([f"{self.job}: {self.headline}", *(f"  - {d}" for d in self.details)])


def _meta(o: Obj) -> Obj:
    return o.get("metadata") or {}


def _conditions(o: Obj) -> dict[str, Obj]:
    return {c.get("type", ""): c for c in (o.get("status") or {}).get("conditions") or []}


def _true(o: Obj, kind: str) -> Obj | None:
    c = _conditions(o).get(kind)
    return c if c is not None and c.get("status") == "True" else None


def workload_of(obs: Observed) -> Obj | None:
    for w in obs.workloads:
        if _meta(w).get("namespace") == obs.namespace and any(
            r.get("kind") == obs.kind and r.get("name") == obs.name for r in _meta(w).get("ownerReferences") or []
        ):
            return w
    return None


def _priority(w: Obj) -> tuple[int, str]:
    spec = w.get("spec") or {}
    ref = spec.get("priorityClassRef") or {}
    return int(spec.get("priority") or 0), str(ref.get("name") or spec.get("priorityClassName") or "none")


def _cluster_queue(obs: Observed, w: Obj) -> Obj | None:
    queue = (w.get("spec") or {}).get("queueName")
    lq = next((q for q in obs.local_queues if _meta(q).get("name") == queue), None)
    name = ((lq or {}).get("spec") or {}).get("clusterQueue")
    return next((q for q in obs.cluster_queues if _meta(q).get("name") == name), None)


def _quota(cq: Obj) -> dict[tuple[str, str], tuple[Decimal, Decimal | None, Decimal | None]]:
    """(flavor, resource) -> (nominal, borrowing limit, lending limit)."""
    out = {}
    for group in (cq.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for r in flavor.get("resources") or []:
                out[(flavor["name"], r["name"])] = (
                    parse_quantity(r.get("nominalQuota")) or Decimal(0),
                    parse_quantity(r.get("borrowingLimit")) if "borrowingLimit" in r else None,
                    parse_quantity(r.get("lendingLimit")) if "lendingLimit" in r else None,
                )
    return out


def _used(cq: Obj) -> dict[tuple[str, str], Decimal]:
    out = {}
    for flavor in (cq.get("status") or {}).get("flavorsReservation") or []:
        for r in flavor.get("resources") or []:
            out[(flavor["name"], r["name"])] = parse_quantity(r.get("total")) or Decimal(0)
    return out


def _cohort_free(obs: Observed, cq: Obj, key: tuple[str, str]) -> Decimal:
    """What the other ClusterQueues of the cohort do not use of their nominal quota (what may be lent)."""
    cohort = (cq.get("spec") or {}).get("cohortName")
    free = Decimal(0)
    for other in obs.cluster_queues:
        if other is cq or not cohort or (other.get("spec") or {}).get("cohortName") != cohort:
            continue
        nominal, _, lending = _quota(other).get(key, (Decimal(0), None, None))
        lendable = nominal if lending is None else min(nominal, lending)
        free += max(Decimal(0), lendable - _used(other).get(key, Decimal(0)))
    return free


def _not_admitted(obs: Observed, w: Obj, cq: Obj | None) -> Explanation:
    ref = f"{obs.kind}/{obs.name}"
    message = str((_conditions(w).get("QuotaReserved") or {}).get("message") or "no quota reserved yet")
    if "validation failed" in message:
        return Explanation(ref, "invalid", "not admitted: Kueue refuses its pod template", (message,))
    details = [f"Kueue: {message}"]
    if cq is not None:
        quota, used = _quota(cq), _used(cq)
        short = _SHORT.search(message)
        keys = [(short[2], short[1])] if short else [k for k in quota if k[1] not in ("cpu", "memory")]
        for key in keys:
            nominal, borrowing, _ = quota.get(key, (Decimal(0), None, None))
            limit = "no borrowing limit" if borrowing is None else f"may borrow {show(borrowing)}"
            details.append(
                f"team queue {_meta(cq).get('name')} uses {show(used.get(key, Decimal(0)))}/{show(nominal)} "
                f"{key[1]} of flavor {key[0]} ({limit}); the cohort has {show(_cohort_free(obs, cq, key))} free"
            )
    mine = _priority(w)
    ahead = sorted(
        _meta(o).get("name", "?")
        for o in obs.workloads
        if o is not w
        and _meta(o).get("namespace") == obs.namespace
        and (o.get("spec") or {}).get("queueName") == (w.get("spec") or {}).get("queueName")
        and _true(o, "QuotaReserved") is None
        and _true(o, "Finished") is None
        and (
            _priority(o)[0] > mine[0]
            or (
                _priority(o)[0] == mine[0]
                and _meta(o).get("creationTimestamp", "") < _meta(w).get("creationTimestamp", "")
            )
        )
    )
    for check in (w.get("status") or {}).get("admissionChecks") or []:
        if check.get("state") != "Ready":
            details.append(
                f"admission check {check.get('name')}: {check.get('state')} {check.get('message', '')}".strip()
            )
    if ahead:
        details.append(f"{len(ahead)} workload(s) ahead of yours in the queue: {', '.join(ahead)}")
        return Explanation(ref, "waiting", f"not admitted: waiting behind {len(ahead)} workload(s)", tuple(details))
    return Explanation(ref, "over-quota", "not admitted: the team's quota and the cohort are used up", tuple(details))


def _preempted(obs: Observed, w: Obj, evicted: Obj) -> Explanation:
    ref = f"{obs.kind}/{obs.name}"
    message = str(evicted.get("message") or "")
    uid = _UID.search(message)
    by = next((o for o in obs.workloads if uid and _meta(o).get("uid") == uid[1]), None)
    why = (_conditions(w).get("Preempted") or {}).get("reason") or evicted.get("reason", "")
    details = [f"Kueue: {message}"]
    if by is not None:
        value, cls = _priority(by)
        who = f"{_meta(by).get('namespace')}/{_meta(by).get('name')}"
        owner: Obj = next(iter(_meta(by).get("ownerReferences") or []), {})
        job = f"{owner.get('kind', 'workload')} {_meta(by).get('namespace')}/{owner.get('name', who)}"
        details.insert(0, f"preempted by {job} (priority class {cls}, {value} > {_priority(w)[0]}); reason {why}")
    pending = (_conditions(w).get("QuotaReserved") or {}).get("message")
    if pending:
        details.append(f"requeued, now: {pending}")
    return Explanation(
        ref, "preempted", "preempted: evicted to make room for a higher-priority workload", tuple(details)
    )


def _amount(resource: str, value: Decimal | None) -> str:
    if value is None:
        return "none"
    if resource in ("memory", "ephemeral-storage"):
        return f"{float(value / 2**30):.1f}".removesuffix(".0") + "Gi"
    return show(value)


def _unschedulable(obs: Observed, pending: list[Obj], pools: list[PoolNodes], w: Obj | None) -> Explanation:
    ref = f"{obs.kind}/{obs.name}"
    pod = pending[0]
    cond = _conditions(pod).get("PodScheduled") or {}
    details = [f"scheduler ({len(pending)} pod(s) Pending): {cond.get('message', cond.get('reason', ''))}"]
    spec = pod.get("spec") or {}
    requests: dict[str, Decimal] = {}
    for c in spec.get("containers") or []:
        for k, v in ((c.get("resources") or {}).get("requests") or {}).items():
            requests[k] = requests.get(k, Decimal(0)) + (parse_quantity(v) or Decimal(0))
    allocatable: dict[str, dict[str, Decimal]] = {}
    for n in obs.nodes:  # what a live node of the pool has; else the pool's shape (scaled to zero)
        pool_name = (_meta(n).get("labels") or {}).get(NODEPOOL_LABEL, "")
        have = ((n.get("status") or {}).get("allocatable")) or {}
        allocatable.setdefault(pool_name, {k: q for k, v in have.items() if (q := parse_quantity(v)) is not None})
    for pool in pools:
        reasons = selector_mismatch(spec, pool.labels)
        untolerated = [t for t in pool.taints if not tolerates(spec.get("tolerations") or [], t)]
        reasons += [f"taint {t.key}={t.value}:{t.effect} not tolerated" for t in untolerated]
        for res, amount in requests.items():
            have = allocatable.get(pool.name, pool.allocatable).get(res)
            if amount > 0 and (have is None or amount > have):
                reasons.append(f"asks {_amount(res, amount)} {res}, a node has {_amount(res, have)}")
        details.append(f"pool {pool.name}: {'; '.join(reasons) or 'fits: wait for the autoscaler to add a node'}")
    flavors = ((w or {}).get("status") or {}).get("admission", {}).get("podSetAssignments") or []
    for a in flavors:
        assigned = ", ".join(f"{r} -> {f}" for r, f in sorted((a.get("flavors") or {}).items()))
        details.append(f"Kueue assigned pod set {a.get('name')}: {assigned}")
    return Explanation(ref, "unschedulable", "admitted by Kueue, but its pods fit no node", tuple(details))


def _running(obs: Observed, pools: list[PoolNodes]) -> Explanation:
    ref = f"{obs.kind}/{obs.name}"
    pool_of = {_meta(n).get("name"): (_meta(n).get("labels") or {}).get(NODEPOOL_LABEL, "?") for n in obs.nodes}
    where: dict[str, int] = {}
    restarts, causes = 0, set()
    for p in obs.pods:
        node = (p.get("spec") or {}).get("nodeName", "?")
        key = f"pool {pool_of.get(node, '?')}"
        where[key] = where.get(key, 0) + 1
        for cs in (p.get("status") or {}).get("containerStatuses") or []:
            restarts += int(cs.get("restartCount") or 0)
            last = (cs.get("lastState") or {}).get("terminated") or {}
            if last.get("reason"):
                causes.add(f"{last['reason']} (exit {last.get('exitCode')})")
    since = min(((p.get("status") or {}).get("startTime") or "" for p in obs.pods), default="")
    placed = ", ".join(f"{k} ({n})" for k, n in sorted(where.items()))
    restarted = f"restarts: {restarts}" + (f" ({', '.join(sorted(causes))})" if causes else "")
    details = [f"{len(obs.pods)} pod(s) running on {placed}", f"since {since}", restarted]
    return Explanation(ref, "running", f"running: {len(obs.pods)} pod(s)", tuple(details))


def explain(obs: Observed, pools: list[PoolNodes]) -> Explanation:
    ref = f"{obs.kind}/{obs.name}"
    if obs.job is None:
        return Explanation(ref, "not-found", f"no {obs.kind} {obs.name} in namespace {obs.namespace}")
    w = workload_of(obs)
    if w is not None:
        if _true(w, "Finished"):
            return Explanation(ref, "finished", "finished", (str(_conditions(w)["Finished"].get("message", "")),))
        evicted = _true(w, "Evicted") or _true(w, "Preempted")
        if evicted is not None and _true(w, "Admitted") is None:
            return _preempted(obs, w, evicted)
        if _true(w, "Admitted") is None:
            return _not_admitted(obs, w, _cluster_queue(obs, w))
    elif not obs.pods:
        return Explanation(ref, "not-queued", "no Kueue Workload and no pods: is the job's queue label set?",
                           ("label kueue.x-k8s.io/queue-name with the team's LocalQueue",))  # fmt: skip
    pending = [p for p in obs.pods if (p.get("status") or {}).get("phase") == "Pending"
               and (_conditions(p).get("PodScheduled") or {}).get("status") == "False"]  # fmt: skip
    if pending:
        return _unschedulable(obs, pending, pools, w)
    if obs.pods and all((p.get("status") or {}).get("phase") == "Running" for p in obs.pods):
        return _running(obs, pools)
    phases = tuple(f"pod {_meta(p).get('name')}: {(p.get('status') or {}).get('phase')}" for p in obs.pods)
    return Explanation(ref, "starting", "admitted: pods are being created or started", phases)
