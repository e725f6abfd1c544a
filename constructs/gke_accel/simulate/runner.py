"""The runner: a trace through a running twin in compressed time (``compression`` simulated seconds per
wall second), recording an event log (``events``). ``--clock wall``; the default, the event-driven
clock, is ``virtual.VirtualRunner``, which reuses this class's following and work accounting.

Each job is submitted at its time as ``workload new`` makes it (``objects.submission``), its pods
annotated to complete after duration / compression wall seconds. Every ``tick`` the runner lists the
Kueue Workloads and the jobs' pods and records what changed: admission (QuotaReserved, with the flavor),
running chips, eviction (QuotaReserved lost before Finished: Kueue suspends the job and requeues it),
finish. Work is accounted per job: a run that ends early keeps the checkpoints it wrote (every
``checkpoint`` seconds of running), loses the rest (``lost``), and the job then needs ``duration -
saved``: the runner completes the pods of a restarted job itself (Succeeded, as kwok's stage would) once
that much has run, since the pod template still carries the first run's time; and those of a first run
that kwok's stage has not ended two polls after its time (``Runner.grace``, logged in ``notes``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gke_accel.model import EnvironmentPlan
from gke_accel.simulate import failures, serving
from gke_accel.simulate.api import Api, ApiError, collection
from gke_accel.simulate.events import Event
from gke_accel.simulate.objects import JOB_LABEL, Submission, submission
from gke_accel.simulate.plane_state import admitted_flavor, condition
from gke_accel.simulate.policy import static_cluster_queue
from gke_accel.simulate.trace import TraceJob

KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
Obj = dict[str, Any]


@dataclass
class JobState:
    sub: Submission
    submitted: bool = False
    admitted: bool = False
    finished: bool = False
    flavor: str = ""
    chips_running: int = 0
    run_start: float | None = None
    saved: float = 0.0  # seconds of work checkpointed
    restarted: bool = False
    lost_at: float | None = None  # simulated time the node of the current run was lost (failures.py)

    @property
    def on_lost_node(self) -> bool:
        """A run is under way on a node that was lost (it makes no progress; the engines end it)."""
        return self.lost_at is not None and self.run_start is not None


@dataclass
class RunResult:
    events: list[Event]
    until: float  # simulated seconds covered
    wall: float
    ticks: int
    notes: list[str] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)  # wall seconds by what they went to (virtual clock)


def apply_policy(api: Api, policy: str) -> int:
    """Make the ClusterQueues follow ``policy``; the number changed."""
    if policy != "static":
        return 0
    changed = 0
    for cq in api.items(f"{KUEUE}/clusterqueues"):
        new = static_cluster_queue(cq)
        if new != cq:
            api.request("PUT", f"{KUEUE}/clusterqueues/{cq['metadata']['name']}", new)
            changed += 1
    return changed


class Runner:
    kwok_completes = True  # kwok's stage ends a first run (the pods carry its run time)

    def __init__(self, api: Api, plan: EnvironmentPlan, jobs: Sequence[TraceJob], *, compression: float,
                 tick: float = 0.25, node_failures: float = 0.0, seed: int = 1,
                 until: float | None = None, on_tick: Callable[[float], None] | None = None) -> None:  # fmt: skip
        self.api, self.plan, self.k, self.tick = api, plan, compression, tick
        self.jobs = {j.name: JobState(submission(plan, j, self.run_seconds(j))) for j in jobs if not j.serving}
        self.serving = serving.deployments(plan, jobs)  # the trace's Deployments (simulate/serving.py)
        self.events: list[Event] = []
        last = max((j.submit + j.duration for j in jobs), default=0.0)
        self.until = until if until is not None else 3 * last + 3600
        nodes = api.items("/api/v1/nodes")
        self.failures = failures.schedule(node_failures, self.until, failures.failure_units(nodes), seed)
        self.repairs: list[tuple[float, tuple[str, ...]]] = []
        self.silences: list[tuple[float, tuple[str, ...]]] = []  # (loss + failures.DETECT, nodes)
        self.lost_nodes: set[str] = set()  # nodes lost and not yet repaired
        self.silent: set[str] = set()  # of those, the ones kwok no longer heartbeats
        self.on_tick = on_tick
        self.notes: list[str] = []
        self.late: set[str] = set()  # first runs kwok's stage had not ended in time (see ``grace``)

    def run_seconds(self, job: TraceJob) -> float | None:
        """The pods' ``gke-accel/run-seconds`` (wall seconds for kwok's stage)."""
        return job.duration / self.k

    def log(self, t: float, st: JobState, kind: str, **kw: Any) -> None:
        self.events.append(Event(t, st.sub.job.name, st.sub.job.team, kind, **kw))

    def run(self) -> RunResult:
        t0 = time.monotonic()
        ticks = 0
        while True:
            now = (time.monotonic() - t0) * self.k
            self.step(now)
            ticks += 1
            if self.on_tick:
                self.on_tick(now)
            if now >= self.until or self.all_done():
                if self.late:
                    late = f"kwok ended {len(self.late)} of {len(self.jobs)} jobs' first runs late"
                    self.notes.append(f"{late}; the runner ended them {2 * self.tick * self.k / 60:.1f} simulated "
                                      "minutes after their time")  # fmt: skip
                self.withdraw()
                return RunResult(self.events, now, time.monotonic() - t0, ticks, self.notes)
            time.sleep(max(0.0, self.tick - ((time.monotonic() - t0) % self.tick)))

    def all_done(self) -> bool:
        """Every job finished and every Deployment scaled to 0 for good (its pods gone)."""
        return all(s.finished for s in self.jobs.values()) and all(d.done for d in self.serving.values())

    def withdraw(self) -> None:
        """At the horizon: delete the objects of every job not finished and of every Deployment still up, so
        that nothing of this run holds quota or nodes in the twin afterwards (the next run, or the user's
        own jobs, start clean); the nodes still silent are given back to kwok."""
        up = [d.sub for d in self.serving.values() if d.created and not d.done]
        for sub in [st.sub for st in self.jobs.values() if st.submitted and not st.finished] + up:
            for obj in sub.objects:
                self.api.delete(f"{collection(obj)}/{obj['metadata']['name']}")
        if self.silent:
            failures.revive(self.api, sorted(self.silent))
            self.silent.clear()

    # ---- one poll ----------------------------------------------------------------------------------
    def step(self, now: float) -> None:
        self.apply(now)
        self.observe(now)

    def reach(self, now: float) -> float:
        """The latest trace or failure time applied at ``now`` (the virtual clock's resolution moves it)."""
        return now

    def apply(self, now: float) -> None:
        """What the trace and the failure schedule do by ``now``: submissions, node losses, repairs."""
        reach = self.reach(now)
        for st in self.jobs.values():
            if not st.submitted and st.sub.job.submit <= reach:
                for obj in st.sub.objects:
                    self.api.create(obj)
                st.submitted = True
                self.log(now, st, "submitted", chips=st.sub.chips)
        for dep in self.serving.values():
            serving.apply(self.api, dep, reach, now, self.events.append)
        silenced: set[str] = set()
        for due, names in [r for r in self.silences if r[0] <= reach]:
            failures.silence(self.api, names)
            self.silent.update(names)
            silenced.update(names)
            self.silences.remove((due, names))
        # before new losses: each lasts a step; a node silenced now is repaired at a later jump, once the
        # engines have evicted its pods (on the clock's steps both may fall on one)
        for due, names in [r for r in self.repairs if r[0] <= reach and not silenced & set(r[1])]:
            failures.revive(self.api, names)
            for name in names:
                self.lost_nodes.discard(name)
                self.silent.discard(name)
            self.repairs.remove((due, names))
        while self.failures and self.failures[0].t <= reach:
            self.fail(now, self.failures.pop(0).nodes)

    def observe(self, now: float) -> tuple[dict[tuple[str, str], Obj], list[Obj]]:
        """One poll: the Workloads (by namespace and owner name) and the trace's pods, each job followed.
        The pods are listed first: a pod seen Running had its Workload's quota reserved before, so the
        Workloads listed after show the admission (and its flavor) that the run is accounted under."""
        pods = self.api.items(f"/api/v1/pods?labelSelector={JOB_LABEL}")
        workloads = {}
        for wl in self.api.items(f"{KUEUE}/workloads"):
            for ref in wl["metadata"].get("ownerReferences", []):
                workloads[(wl["metadata"]["namespace"], ref["name"])] = wl
        running: dict[str, int] = {}
        for pod in pods:
            if pod["status"].get("phase") == "Running" and "deletionTimestamp" not in pod["metadata"]:
                name = pod["metadata"]["labels"][JOB_LABEL]
                if name not in self.jobs:
                    continue  # a pod of another run's job, still going away
                running[name] = running.get(name, 0) + _chips(pod, self.jobs[name].sub.resource)
        for name, st in self.jobs.items():
            if st.submitted and not st.finished:
                self.follow(now, st, workloads.get((st.sub.namespace, name)), running.get(name, 0))
        for name, dep in self.serving.items():
            serving.follow(self.api, now, dep, workloads, serving.pods_of(pods, name), self.events.append)
        return workloads, pods

    def follow(self, now: float, st: JobState, wl: Obj | None, chips: int) -> None:
        if wl is not None and condition(wl, "Finished"):
            self.stop_run(now, st, None)
            st.finished = True
            self.log(now, st, "finished")
            for obj in st.sub.objects:
                self.api.delete(f"{collection(obj)}/{obj['metadata']['name']}")
            return
        # Kueue sets Evicted (reason Preempted, ...) first, then suspends the job (its pods go), and only
        # then releases the quota: the run ends at Evicted, before the pods stop.
        evicted = condition(wl, "Evicted") if wl is not None else None
        reserved = wl is not None and condition(wl, "QuotaReserved") is not None and evicted is None
        if reserved and not st.admitted:
            st.admitted, st.flavor = True, admitted_flavor(wl, st.sub.resource)
            self.log(now, st, "admitted", flavor=st.flavor, chips=st.sub.chips)
        elif st.admitted and not reserved:
            cause = "preempted" if evicted and evicted.get("reason") == "Preempted" else "evicted"
            self.stop_run(now, st, "node-failure" if st.on_lost_node else cause)
            st.admitted = False
        if chips != st.chips_running:
            if chips < st.chips_running:
                # a pod finished, or the engines evicted the pods of a lost node (failures.py)
                self.stop_run(now, st, "node-failure" if st.on_lost_node else None)
            st.chips_running = chips
            self.log(now, st, "running", flavor=st.flavor, chips=chips)
        if chips == st.sub.chips and st.run_start is None and st.admitted:
            st.run_start = now
        if self.due(st, now):
            self.complete_pods(st)

    def due(self, st: JobState, now: float) -> bool:
        """The current run has done the job's remaining work (plus ``grace``) by ``now``; never a run whose
        node was lost (it makes no progress; the engines end it)."""
        if st.lost_at is not None or st.run_start is None:
            return False
        return st.saved + now - st.run_start >= st.sub.job.duration + self.grace(st)

    def grace(self, st: JobState) -> float:
        """How long past a job's due time the runner waits for kwok's stage before it completes the pods
        itself. A restarted job's pods carry the first run's time, so the runner ends those at once. A
        first run is kwok's to end; on a loaded machine kwok's timer has fired a whole run late (a
        1-hour job ending with a 2-hour one), so after two polls the runner ends it, noted in ``notes``."""
        return 0.0 if st.restarted else 2 * self.tick * self.k  # the note in ``run`` says this too

    def stop_run(self, now: float, st: JobState, cause: str | None) -> None:
        """The job's current run ends at ``now``. Finished (no cause): all it ran is done. Evicted or its
        node lost: it keeps the checkpoints of this run, the rest is lost and logged."""
        lost = 0.0
        if st.run_start is not None:
            ran = now - st.run_start
            cp = st.sub.job.checkpoint
            # a run on a lost node wrote no checkpoint after the loss: the rest of it is lost
            before = ran if st.lost_at is None else min(ran, max(0.0, st.lost_at - st.run_start))
            kept = ran if cause is None else self.kept(before, cp)
            st.saved, lost, st.run_start = min(st.sub.job.duration, st.saved + kept), ran - kept, None
        st.lost_at = None
        if cause is not None:
            st.restarted = True
            self.log(now, st, "evicted", flavor=st.flavor, chips=st.sub.chips, detail=cause, lost=lost)

    def kept(self, ran: float, checkpoint: float | None) -> float:
        """Of a run of ``ran`` seconds that ended early, the work its checkpoints saved."""
        return math.floor(ran / checkpoint) * checkpoint if checkpoint else 0.0

    def fail(self, now: float, names: tuple[str, ...]) -> None:
        """The nodes are lost at ``now``: the runs on them make no progress from here; the engines evict
        their pods once the nodes fall silent, ``failures.DETECT`` later; the nodes return at ``REPAIR``."""
        names = tuple(n for n in names if n not in self.lost_nodes)  # a node already down is not lost twice
        if not names:
            return
        hit = failures.node_pods(self.api, names)
        self.lost_nodes.update(names)
        self.silences.append((now + failures.DETECT, names))
        self.repairs.append((now + failures.REPAIR, names))
        for name in sorted({p["metadata"].get("labels", {}).get(JOB_LABEL, "") for p in hit}):
            st = self.jobs.get(name)
            if st is not None and not st.finished and st.run_start is not None and st.lost_at is None:
                st.lost_at = now

    def complete_pods(self, st: JobState) -> None:
        for pod in self.api.items(
            f"/api/v1/namespaces/{st.sub.namespace}/pods?labelSelector={JOB_LABEL}%3D{st.sub.job.name}"
        ):
            if pod["status"].get("phase") != "Running":
                continue
            if not st.restarted and self.kwok_completes:
                self.late.add(st.sub.job.name)
            statuses = [{"name": c["name"], "image": c["image"], "ready": False, "restartCount": 0,
                         "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
                        for c in pod["spec"]["containers"]]  # fmt: skip
            try:
                self.api.patch_status(f"/api/v1/namespaces/{st.sub.namespace}/pods/{pod['metadata']['name']}",
                                      {"status": {"phase": "Succeeded", "containerStatuses": statuses}})  # fmt: skip
            except ApiError as err:
                self.notes.append(f"{st.sub.job.name}: completing pod: {err}")


def _chips(pod: Obj, resource: str) -> int:
    total = 0
    for c in pod["spec"]["containers"]:
        total += int(c.get("resources", {}).get("requests", {}).get(resource, 0))
    return total
