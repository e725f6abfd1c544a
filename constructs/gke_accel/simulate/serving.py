"""Serving in a simulation: the trace's Deployments (``kind: deployment``, simulate/trace.py), followed by
the runner beside its jobs.

Each Deployment is created at its first row's time as ``workload new --kind deployment`` makes it
(``objects.submission``: labels, queue name, priority class, node selectors, tolerations, and its
PodDisruptionBudget), with that row's replica count, and scaled (``spec.replicas``) at each later row's
time: on the virtual clock those times are event times. The ReplicaSet controller makes the pods; Kueue's
pod integration gates each one and admits it as a Workload of its own (owner: the Pod), so replicas are
admitted, wait and are preempted one by one; a preempted replica's pod is deleted by Kueue and the
ReplicaSet controller makes a new one, which queues again. kwok runs the pods until they are deleted (no
``gke-accel/run-seconds``). A Deployment whose last count is 0 is deleted once its pods are gone; one
still up is deleted at the horizon (``Runner.withdraw``).

A replica that goes is ``finished`` (scaled down) while the scale-downs so far still have admitted pods
to remove (the ReplicaSet controller removes those not yet admitted first), else ``evicted``: Kueue
evicted it (its Workload's Evicted condition, or, when the pod and its Workload went between two polls,
the Workload's Events: reason Preempted).

Logged per replica (``Event.deployment`` = the Deployment, ``Event.job`` = the pod): ``admitted``
(flavor), ``running`` (chips of one replica; 0 when it stops), ``evicted`` (detail ``preempted`` or
``evicted``; ``lost`` is always 0: a server loses availability, not work), ``finished`` (the pod went
by a scale-down); and per Deployment a ``scaled`` event (``replicas``) at each row's time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gke_accel.model import EnvironmentPlan
from gke_accel.simulate.api import Api, collection
from gke_accel.simulate.events import Event
from gke_accel.simulate.objects import JOB_LABEL, Submission, submission
from gke_accel.simulate.plane_state import admitted_flavor, condition
from gke_accel.simulate.trace import TraceJob, scale_steps

Obj = dict[str, Any]
Log = Callable[[Event], None]


@dataclass
class Replica:
    admitted: bool = False
    running: bool = False
    flavor: str = ""
    workload: str = ""  # its Workload's name, seen at admission


@dataclass
class ServingState:
    sub: Submission
    steps: list[tuple[float, int]]  # (from, replicas)
    applied: int = 0  # steps applied so far
    target: int = 0
    created: bool = False
    done: bool = False  # scaled to 0 after its last step, its pods gone, its objects deleted
    pods: dict[str, Replica] = field(default_factory=dict)
    down: int = 0  # admitted replicas the scale-downs so far will still remove

    @property
    def name(self) -> str:
        return self.sub.job.name

    def upcoming(self) -> list[float]:
        return [t for t, _ in self.steps[self.applied :]]


def deployments(plan: EnvironmentPlan, jobs: Sequence[TraceJob]) -> dict[str, ServingState]:
    rows: dict[str, list[TraceJob]] = {}
    for job in jobs:
        if job.serving:
            rows.setdefault(job.name, []).append(job)
    out = {}
    for name, group in rows.items():
        first = min(group, key=lambda j: j.submit)
        largest = max(j.replicas or 0 for j in group)
        out[name] = ServingState(submission(plan, first, None, largest), scale_steps(group))
    return out


def _event(now: float, st: ServingState, kind: str, job: str = "", **kw: Any) -> Event:
    return Event(now, job or st.name, st.sub.job.team, kind, deployment=st.name, **kw)


def apply(api: Api, st: ServingState, reach: float, now: float, log: Log) -> None:
    """Create or scale the Deployment to each of its steps due by ``reach``."""
    while st.applied < len(st.steps) and st.steps[st.applied][0] <= reach:
        _, replicas = st.steps[st.applied]
        st.applied += 1
        deployment = st.sub.objects[0]
        if not st.created:
            for obj in st.sub.objects:
                api.create({**obj, "spec": {**obj["spec"], "replicas": replicas}} if obj is deployment else obj)
            st.created = True
        else:
            api.request("PATCH", f"{collection(deployment)}/{st.name}", {"spec": {"replicas": replicas}},
                        "application/merge-patch+json")  # fmt: skip
            # the ReplicaSet controller removes the excess pods, those not yet admitted first
            excess = len(st.pods) - replicas
            st.down += max(0, excess - sum(not r.admitted for r in st.pods.values()))
        st.target = replicas
        log(_event(now, st, "scaled", chips=st.sub.chips, replicas=replicas))


def follow(api: Api, now: float, st: ServingState, workloads: dict[tuple[str, str], Obj], pods: Sequence[Obj],
           log: Log) -> None:  # fmt: skip
    """One poll of the Deployment's pods (``pods``: those labelled with its name) and their Workloads."""
    if not st.created or st.done:
        return
    live: set[str] = set()
    for pod in pods:
        name = pod["metadata"]["name"]
        phase = pod.get("status", {}).get("phase")
        wl = workloads.get((st.sub.namespace, name))
        evicted = condition(wl, "Evicted")
        if "deletionTimestamp" in pod["metadata"] or phase in ("Succeeded", "Failed"):
            rep = st.pods.get(name)
            if rep is not None and rep.admitted and evicted is not None:  # Kueue evicts, then deletes the pod
                _evict(now, st, name, rep, evicted, log)
            continue
        live.add(name)
        rep = st.pods.setdefault(name, Replica())
        reserved = condition(wl, "QuotaReserved") is not None and evicted is None and condition(wl, "Finished") is None
        if reserved and not rep.admitted:
            rep.admitted, rep.flavor = True, admitted_flavor(wl, st.sub.resource)
            rep.workload = str((wl or {}).get("metadata", {}).get("name", ""))
            log(_event(now, st, "admitted", name, flavor=rep.flavor, chips=st.sub.chips))
        elif evicted is not None and rep.admitted:
            _evict(now, st, name, rep, evicted, log)
            continue
        if phase == "Running" and rep.admitted and not rep.running:
            rep.running = True
            log(_event(now, st, "running", name, flavor=rep.flavor, chips=st.sub.chips))
    for name in [n for n in st.pods if n not in live]:  # gone: scaled down, or evicted (logged if seen)
        rep = st.pods.pop(name)
        if rep.admitted and st.down > 0:
            st.down -= 1
            _stop(now, st, name, rep, log)
            log(_event(now, st, "finished", name, flavor=rep.flavor, chips=st.sub.chips, detail="scaled-down"))
        elif rep.admitted:  # Kueue evicted it and its pod and Workload went between two polls: its events say why
            _evict(now, st, name, rep, {"reason": _why_gone(api, st.sub.namespace, rep.workload)}, log)
    if st.applied == len(st.steps) and st.target == 0 and not pods:
        for obj in st.sub.objects:
            api.delete(f"{collection(obj)}/{obj['metadata']['name']}")
        st.done = True


def _evict(now: float, st: ServingState, name: str, rep: Replica, evicted: dict[str, Any], log: Log) -> None:
    _stop(now, st, name, rep, log)
    cause = "preempted" if evicted.get("reason") == "Preempted" else "evicted"
    log(_event(now, st, "evicted", name, flavor=rep.flavor, chips=st.sub.chips, detail=cause))
    rep.admitted = False


def _why_gone(api: Api, namespace: str, workload: str) -> str:
    """The reason Kueue recorded for evicting ``workload`` (its Events outlive it): Preempted, or ""."""
    found = api.items(f"/api/v1/namespaces/{namespace}/events?fieldSelector=involvedObject.name%3D{workload}")
    return "Preempted" if any(e.get("reason") == "Preempted" for e in found) else ""


def _stop(now: float, st: ServingState, name: str, rep: Replica, log: Log) -> None:
    if rep.running:
        rep.running = False
        log(_event(now, st, "running", name, flavor=rep.flavor, chips=0))


def pods_of(pods: Sequence[Obj], name: str) -> list[Obj]:
    return [p for p in pods if p["metadata"].get("labels", {}).get(JOB_LABEL) == name]
