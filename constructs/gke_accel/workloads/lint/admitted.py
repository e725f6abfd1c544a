"""The ``quota-now`` rule: a workload against what Kueue has already admitted, read from a live cluster
(``gke-accel lint --kubeconfig``, a real cluster or the twin's). Kueue admits a workload when each pod
set fits, on one flavor, within what the team's ClusterQueue can still get there: its nominal quota
plus what it may borrow (``borrowingLimit``, none: no limit), less what it already holds, and the
borrowed part no more than the cohort's unused lendable quota (each member's ``lendingLimit``, none: its
whole nominal). "Holds" is the ClusterQueue's ``status.flavorsReservation`` (``flavorsUsage`` where a
Kueue writes no reservation), Kueue v1beta2's field names (``apis/kueue/v1beta2/clusterqueue_types.go``).
A workload that needs more than that now is queued, not refused: a warning that names the numbers (W1,
real-engines W4g: quota was judged one workload at a time)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from gke_accel.workloads.lint._model import GPU_RESOURCE, TPU_RESOURCE, TeamSpec
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.team import Enforced, Placed
from gke_accel.workloads.manifests import Obj, as_dict, as_list
from gke_accel.workloads.quantity import parse_quantity, show

ZERO = Decimal(0)
Key = tuple[str, str]  # (flavor, resource)


@dataclass(frozen=True)
class Room:
    """What one ClusterQueue can still get on one (flavor, resource)."""

    nominal: Decimal
    borrowing_limit: Decimal | None
    in_use: Decimal
    cohort: str
    cohort_unused: Decimal  # the cohort's unused lendable quota (its own included)

    @property
    def available(self) -> Decimal:
        ceiling = None if self.borrowing_limit is None else self.nominal + self.borrowing_limit - self.in_use
        if not self.cohort:
            return max(ZERO, self.nominal - self.in_use)
        reachable = self.cohort_unused  # its own unlent part is in cohort_unused too (see quotas())
        return max(ZERO, reachable if ceiling is None else min(ceiling, reachable))

    def explain(self) -> str:
        borrow = "no borrowing limit" if self.borrowing_limit is None else f"borrowable {show(self.borrowing_limit)}"
        cohort = f"; cohort {self.cohort} has {show(self.cohort_unused)} unused" if self.cohort else ""
        return f"nominal {show(self.nominal)}, {borrow}, in use {show(self.in_use)}{cohort}"


def _quantity(value: object) -> Decimal:
    q = parse_quantity(value)
    return ZERO if q is None else q


def _quotas(cq: Obj) -> dict[Key, tuple[Decimal, Decimal | None, Decimal | None]]:
    """(flavor, resource) -> (nominal, borrowingLimit, lendingLimit) of a ClusterQueue's spec."""
    out: dict[Key, tuple[Decimal, Decimal | None, Decimal | None]] = {}
    for group in as_list(as_dict(cq.get("spec")).get("resourceGroups")):
        for flavor in as_list(as_dict(group).get("flavors")):
            for item in as_list(as_dict(flavor).get("resources")):
                r = as_dict(item)
                limits = [None if r.get(k) is None else _quantity(r[k]) for k in ("borrowingLimit", "lendingLimit")]
                out[(str(as_dict(flavor).get("name")), str(r.get("name")))] = (_quantity(r.get("nominalQuota")),
                                                                               limits[0], limits[1])  # fmt: skip
    return out


def in_use(cq: Obj) -> dict[Key, Decimal]:
    """(flavor, resource) -> the quota its workloads hold (reserved, else used)."""
    status = as_dict(cq.get("status"))
    listed = status.get("flavorsReservation") or status.get("flavorsUsage")
    out: dict[Key, Decimal] = {}
    for flavor in as_list(listed):
        for r in as_list(as_dict(flavor).get("resources")):
            out[(str(as_dict(flavor).get("name")), str(as_dict(r).get("name")))] = _quantity(as_dict(r).get("total"))
    return out


def rooms(cluster_queues: list[Obj], name: str) -> dict[Key, Room] | None:
    """What ClusterQueue ``name`` can still get per (flavor, resource); None when the cluster has none."""
    by_name = {str(as_dict(cq.get("metadata")).get("name")): cq for cq in cluster_queues}
    own = by_name.get(name)
    if own is None:
        return None
    cohort = str(as_dict(own.get("spec")).get("cohortName") or "")
    members = [cq for cq in by_name.values() if cohort and as_dict(cq.get("spec")).get("cohortName") == cohort]
    unused: dict[Key, Decimal] = {}
    for cq in members:  # per member: its lendable quota, less what it uses beyond its unlent part
        used = in_use(cq)
        for key, (nominal, _, lending) in _quotas(cq).items():
            lendable = nominal if lending is None else min(nominal, lending)
            kept = nominal - lendable
            own_kept_free = max(ZERO, kept - used.get(key, ZERO)) if cq is own else ZERO
            unused[key] = unused.get(key, ZERO) + lendable - max(ZERO, used.get(key, ZERO) - kept) + own_kept_free
    used = in_use(own)
    return {
        key: Room(nominal, borrowing, used.get(key, ZERO), cohort, unused.get(key, ZERO))
        for key, (nominal, borrowing, _) in _quotas(own).items()
    }


def quota_now_findings(
    ref: str, team: str, cluster_queue: str, needs: list[tuple[list[str], str, Decimal]], room: dict[Key, Room] | None
) -> list[Finding]:
    """``needs``: per pod set (the flavors it may take, in Kueue's order; its resource; how much at once)."""
    if room is None:
        return [Finding("quota-now", "warning", ref,
                        f"team {team}'s ClusterQueue {cluster_queue} is not on the cluster: quota in use not checked",
                        "apply the environment's queues (make deploy) or check --context")]  # fmt: skip
    taken: dict[Key, Decimal] = {}
    for flavors, resource, need in needs:
        keys = [(f, resource) for f in flavors if (f, resource) in room]
        fits = [k for k in keys if room[k].available - taken.get(k, ZERO) >= need]
        if fits:
            taken[fits[0]] = taken.get(fits[0], ZERO) + need
            continue
        if not keys:
            continue
        best = max(keys, key=lambda k: room[k].available - taken.get(k, ZERO))
        r = room[best]
        left = max(ZERO, r.available - taken.get(best, ZERO))
        return [
            Finding(
                "quota-now",
                "warning",
                ref,
                f"needs {show(need)} {resource} of flavor {best[0]} at once; team {team}'s ClusterQueue "
                f"{cluster_queue} can get {show(left)} there now ({r.explain()}): Kueue queues it until "
                "admitted workloads finish or are preempted",
                "wait, or ask for fewer pods or chips (gke-accel explain JOB says what holds it once submitted)",
            )
        ]
    return []


def live_quota_findings(
    ref: str, team: TeamSpec, placed: list[Placed], enforced: Enforced, cluster_queues: list[Obj]
) -> list[Finding]:
    """The workload's pod sets against what the team's ClusterQueue on the cluster can still get."""
    queue = enforced.queue
    if queue is None:
        return []
    room = rooms(cluster_queues, queue.cluster_queue)
    order = list(room or {})
    needs: list[tuple[list[str], str, Decimal]] = []
    for p in placed:
        res = next((r for r in (TPU_RESOURCE, GPU_RESOURCE) if p.requests.get(r)), None)
        if res is None:
            continue
        names = {x.name for x in p.pools}
        flavors = [f for f, pools in enforced.flavor_pools.items() if names & set(pools)]
        flavors.sort(key=lambda f: order.index((f, res)) if (f, res) in order else len(order))  # the CQ's order
        if flavors:
            needs.append((flavors, res, p.requests[res] * p.group.pods))
    return quota_now_findings(ref, team.name, queue.cluster_queue, needs, room) if needs else []
