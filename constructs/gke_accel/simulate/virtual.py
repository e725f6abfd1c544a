"""The event-driven (virtual) clock, ``gke-accel simulate``'s default: simulated time does not follow
wall time. The runner jumps from one event to the next (``next_event``: the next submission, the next
end of a run = its start + the job's remaining work, the next node loss or repair, the horizon), applies
what happens then (creates the job's objects; completes the pods of a run that has done its work, phase
Succeeded, as kwok's stage would; silences or revives lost nodes, failures.py), and waits until the
control plane has settled (``settle``) before the next jump. Every change it sees while settling (admitted, running,
evicted, finished) is logged at the jump's simulated time: the control plane reacts in 0 simulated
seconds, however loaded the machine.

Settled: nothing is mid-chain (a submitted job without its Workload or one Kueue has not yet tried (a
Workload without a QuotaReserved condition for less than ``quiet``: Kueue 0.19 sets one aside without a
condition when an equivalent one found no fit, so after that it counts as waiting for quota), a
Workload with quota reserved whose pods are not all Running or that is being evicted, pods terminating
(but on a silent node: stranded until its repair), a silent node's pod not yet evicted by the engines, a
pod Pending while no node is down), and what may still move on its own has had ``quiet`` wall seconds:
a Workload waiting for quota, since quota was last released (a Workload finished, evicted or gone:
Kueue 0.17 retries the workloads it found inadmissible 1 s after such an event, ``requeueBatchPeriod``
in pkg/cache/queue/inadmissible_workloads.go; a new Workload it tries at once and marks QuotaReserved
False if it does not fit), and a pod waiting for lost nodes, since the last change of the signature of
the Workloads and pods. A wait longer than ``bound`` ends anyway and is noted. The pods carry no
``gke-accel/run-seconds``: kwok leaves them Running (twin/stages.py) until the runner completes them.

Kueue orders by the API's timestamps, which have whole seconds: pending workloads of one priority by
creationTimestamp, ties broken by UID (pkg/cache/queue/cluster_queue.go), and preemption candidates by
admission time. Two jumps in one wall second would make hours of simulated time a tie, broken at random;
so each jump starts in a wall second after the one in which a poll last saw a change (a creation,
admission, eviction or finish: every timestamp Kueue orders by is at most that second). A settle that
ended with a quiet wait has usually passed that second already, so its next jump starts at once.

With a ``resolution`` the clock moves in steps: each event is applied at the nearest step (``on_step``;
submissions and failures up to half a step ahead, ``reach``; a run ends at the step nearest its end,
``due``), a run or a node loss lasts at least one step, and a run cut short keeps its checkpoints on
average over the step (``expected_loss``). Fewer settles, but simultaneous events change Kueue's
decisions: docs/simulate.md measures how much.

The runner also stands in for the kubelet where kwok does not: a pod deleted while Running (by the
JobSet controller restarting a JobSet, e.g. after its exclusive placement put two slices' leaders on one
pool) keeps the Job controller's ``batch.kubernetes.io/job-tracking`` finalizer until its phase is
terminal, which kwok's pod-delete stage never sets; after ``STUCK`` wall seconds the runner marks it
Failed (with a DisruptionTarget condition, as for a lost node: the JobSet restarts it free), noted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from gke_accel.model import EnvironmentPlan
from gke_accel.simulate.api import Api, ApiError
from gke_accel.simulate.durations import format_duration
from gke_accel.simulate.objects import JOB_LABEL
from gke_accel.simulate.plane_state import Workloads, condition, signature, status, unschedulable
from gke_accel.simulate.runner import JobState, Runner, RunResult
from gke_accel.simulate.trace import TraceJob

STUCK = 3.0  # wall seconds a deleted pod may stay Running before the runner ends it (kubelet stand-in)
EPS = 1e-6  # simulated seconds: a run due at run_start + remaining is due despite float rounding
Obj = dict[str, Any]


def expected_loss(ran: float, checkpoint: float, span: float) -> float:
    """The mean of (x mod checkpoint), the work since the last checkpoint, for x uniform over ``ran`` +-
    ``span``/2 (from 0): with F(x) = floor(x/c) c^2/2 + (x mod c)^2/2, its integral, (F(b) - F(a))/(b - a)."""

    def integral(x: float) -> float:
        return math.floor(x / checkpoint) * checkpoint**2 / 2 + math.fmod(x, checkpoint) ** 2 / 2

    a, b = max(0.0, ran - span / 2), ran + span / 2
    return (integral(b) - integral(a)) / (b - a)


class VirtualRunner(Runner):
    kwok_completes = False

    def __init__(self, api: Api, plan: EnvironmentPlan, jobs: Sequence[TraceJob], *, quiet: float = 1.2,
                 poll: float = 0.15, bound: float = 30.0, node_failures: float = 0.0, seed: int = 1,
                 until: float | None = None, resolution: float = 0.0,
                 on_tick: Callable[[float], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, epoch: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep) -> None:  # fmt: skip
        super().__init__(api, plan, jobs, compression=1.0, tick=poll, node_failures=node_failures, seed=seed,
                         until=until, on_tick=on_tick)  # fmt: skip
        self.quiet, self.bound, self.clock, self.epoch, self.sleep = quiet, bound, clock, epoch, sleep
        self.resolution = resolution  # simulated seconds between the clock's steps; 0: every event at its time
        # wall seconds: api (lists, patches, creates), sleep (between polls: chain = a chain under way,
        # quiet = only the quiet period), settle (all of it); and counts
        names = ("api", "sleep", "sleep_chain", "sleep_quiet", "settle", "settle_max", "jumps", "polls",
                 "quiet_waits", "bound_hits", "stuck_pods", "sleep_second")  # fmt: skip
        self.timing = dict.fromkeys(names, 0.0)
        self.actions = 0  # pods the runner completed (each one a change the next poll must see)
        self.holders: set[tuple[str, str]] = set()  # Workloads holding quota at the last poll
        self.released = -float("inf")  # wall time at which a poll last saw quota released
        self.deleting: dict[str, float] = {}  # pod (namespace/name) -> wall time first seen deleted, not ended
        self.first_seen: dict[str, float] = {}  # job -> wall time its Workload was first seen without a verdict
        self.stamp = -1  # the wall second (API timestamp) of the last poll that saw a change
        self.why = ""  # what the last busy poll waited for
        self.unsettled: list[str] = []  # at a bound hit: the simulated time and what it waited for

    def run_seconds(self, job: TraceJob) -> float | None:
        return None  # no kwok timer: the runner ends each run at its simulated time

    def grace(self, st: JobState) -> float:
        return -self.resolution / 2 - EPS

    def reach(self, now: float) -> float:
        return now + self.resolution / 2

    def due(self, st: JobState, now: float) -> bool:
        """As ``Runner.due``, on the clock's steps: a run ends at the step nearest its end, and lasts at
        least one step (a run that started at ``now`` is not due at ``now``)."""
        started = st.run_start is not None and (not self.resolution or now > st.run_start + EPS)
        return started and super().due(st, now)

    def kept(self, ran: float, checkpoint: float | None) -> float:
        """On steps, a run's length is known to a step: it ran ``ran`` +- half a step. Its checkpoints
        keep what they keep on average over that span (``expected_loss``), not what the step's multiple
        would keep (an hour-long step and a 30-minute checkpoint would lose nothing, always)."""
        if not self.resolution or not checkpoint:
            return super().kept(ran, checkpoint)
        return max(0.0, ran - expected_loss(ran, checkpoint, self.resolution))

    def on_step(self, t: float, now: float) -> float:
        """The step at which what happens at ``t`` is applied: the nearest one (a tie: the earlier), and
        at least the one after ``now``; without a resolution, ``t`` itself."""
        if not self.resolution:
            return t
        step = self.resolution * math.ceil((t - self.resolution / 2) / self.resolution - 1e-9)
        return max(now + self.resolution, step)

    def next_event(self, now: float) -> float:
        """The simulated time of the next thing that happens after ``now`` (at most the horizon)."""
        times = [st.sub.job.submit for st in self.jobs.values() if not st.submitted]
        times += [st.run_start + st.sub.job.duration - st.saved for st in self.jobs.values()
                  if st.run_start is not None and not st.finished and st.lost_at is None]  # fmt: skip
        times += [f.t for f in self.failures[:1]] + [due for due, _ in self.repairs + self.silences]
        times += [t for dep in self.serving.values() for t in dep.upcoming()]  # scale times are event times
        # on steps, every time left is after ``now`` (what ``reach`` covered was applied), and a run that
        # started at ``now`` with less than half a step to go ends at the next one
        later = [self.on_step(t, now) for t in times if self.resolution or t > now + EPS] + [self.until]
        return max(now, min(later))

    def run(self) -> RunResult:
        t0 = self.clock()
        now = 0.0
        while True:
            wait = self.stamp + 1 - self.epoch()
            if wait > 0:
                self.sleep(wait)
                self.timing["sleep_second"] += wait
            a = self.clock()
            self.apply(now)
            self.timing["api"] += self.clock() - a
            self.timing["jumps"] += 1
            self.settle(now)
            if now >= self.until or self.all_done():
                break
            now = self.next_event(now)
        self.withdraw()
        if self.timing["stuck_pods"]:
            self.notes.append(f"{int(self.timing['stuck_pods'])} deleted pods stayed Running {STUCK:g} s (kwok sets "
                              "no terminal phase): the runner marked them Failed, as a kubelet would")  # fmt: skip
        hits = int(self.timing["bound_hits"])
        if hits:
            first = "; ".join(self.unsettled[:3])
            self.notes.append(f"the control plane had not settled after {self.bound:g} wall seconds at {hits} of "
                              f"{int(self.timing['jumps'])} events; the runner went on (first: {first})")  # fmt: skip
        return RunResult(self.events, now, self.clock() - t0, int(self.timing["polls"]), self.notes,
                         dict(self.timing))  # fmt: skip

    def settle(self, now: float) -> None:
        """Poll until the control plane has settled (module doc), following every job at ``now``."""
        start = last_change = self.clock()
        last: tuple[Any, ...] | None = None
        while True:
            events, actions = len(self.events), self.actions
            a = self.clock()
            workloads, pods = self.observe(now)
            t = self.clock()
            self.timing["api"] += t - a
            self.timing["polls"] += 1
            if self.on_tick:
                self.on_tick(now)
            sig = signature(workloads, pods)
            if sig != last or len(self.events) != events or self.actions != actions:
                last, last_change = sig, t
                self.stamp = math.floor(self.epoch())
                moved = True
            else:
                moved = False
            holders = {k for k, w in workloads.items()
                       if condition(w, "QuotaReserved") and not condition(w, "Finished")}  # fmt: skip
            if self.holders - holders:
                self.released = t
            self.holders = holders
            self.end_stuck(pods, t)
            busy, queued, waiting = self.state(workloads, pods, t)
            if (
                not moved
                and not busy
                and (not queued or t - self.released >= self.quiet)
                and (not waiting or t - last_change >= self.quiet)
            ):
                self.timing["quiet_waits"] += t - start >= self.quiet
                break
            if t - start >= self.bound:
                self.timing["bound_hits"] += 1
                self.unsettled.append(f"{format_duration(round(now))}: {self.why if busy else 'quiet period'}")
                break
            s = self.clock()
            self.sleep(self.tick)
            slept = self.clock() - s
            self.timing["sleep"] += slept
            self.timing["sleep_chain" if busy or moved else "sleep_quiet"] += slept
        took = self.clock() - start
        self.timing["settle"] += took
        self.timing["settle_max"] = max(self.timing["settle_max"], took)

    def state(self, workloads: Workloads, pods: Sequence[Obj], now_wall: float = 0.0) -> tuple[bool, bool, bool]:
        """(busy: a chain is under way; queued: a Workload waits for quota; waiting: pods wait for nodes)."""
        by_job: dict[str, list[Obj]] = {}
        stranded: set[str] = set()  # jobs with pods Terminating on a silent node: they wait for its repair
        for pod in pods:
            node, job = pod.get("spec", {}).get("nodeName", ""), pod["metadata"].get("labels", {}).get(JOB_LABEL, "")
            ended = pod.get("status", {}).get("phase") in ("Succeeded", "Failed")
            if node in self.silent and not ended:
                if "deletionTimestamp" not in pod["metadata"]:
                    self.why = f"node {node} silent: its pod {pod['metadata']['name']} not yet evicted"
                    return True, False, False  # the node-lifecycle and taint-eviction controllers at work
                stranded.add(job)  # no kubelet will end it: it stays Terminating until the repair
                continue
            if "deletionTimestamp" in pod["metadata"]:
                self.why = f"pod {pod['metadata']['name']} terminating"
                return True, False, False  # pods going away: quota or nodes about to be freed
            by_job.setdefault(job, []).append(pod)
        queued = waiting = False
        for name, st in self.jobs.items():
            if not st.submitted or st.finished:
                continue
            wl = workloads.get((st.sub.namespace, name))
            untried = wl is not None and status(wl, "QuotaReserved")[0] == ""
            if untried and now_wall - self.first_seen.setdefault(name, now_wall) >= self.quiet:
                # Kueue 0.19 (SchedulingEquivalenceHashing, on by default) puts a new Workload equivalent
                # to one that found no fit straight among the inadmissible ones and writes no condition
                # (UnadmittedWorkloadsExplicitStatus is off): a Workload Kueue's scheduler has not admitted
                # within the quiet period waits for quota like any other
                queued = True
                continue
            if wl is None or untried:
                conds = ", ".join(f"{c.get('type')} {c.get('status')} {c.get('reason', '')}".strip()
                                  for c in (wl or {}).get("status", {}).get("conditions", []) or [])  # fmt: skip
                tried = f"Workload not yet tried ({conds or 'no conditions'})"
                self.why = f"{name}: {'no Workload' if wl is None else tried}"
                return True, False, False  # Kueue has not made its Workload yet, or not tried it
            if condition(wl, "QuotaReserved") is None:
                queued = True  # Kueue may admit it once quota is released
                continue
            if condition(wl, "Evicted"):
                self.why = f"{name}: evicted, quota not yet released"
                return True, False, False  # Kueue suspends the job, its pods go, then it releases the quota
            mine = by_job.get(name, [])
            running = sum(p.get("status", {}).get("phase") == "Running" for p in mine)
            if running < st.sub.pods:
                if name in stranded or (self.lost_nodes and any(unschedulable(p) for p in mine)):
                    waiting = True  # its pods wait for the lost nodes
                    continue
                self.why = f"{name}: admitted, {running} of {st.sub.pods} pods Running"
                return True, False, False  # admitted: the JobSet/Job controllers, the scheduler, kwok at work
        for name, dep in self.serving.items():
            if not dep.created or dep.done:
                continue
            mine = by_job.get(name, [])
            if len(mine) != dep.target:  # the Deployment and ReplicaSet controllers at work
                self.why = f"{name}: {len(mine)} of {dep.target} replicas' pods"
                return True, False, False
            for pod in mine:
                pod_name = pod["metadata"]["name"]
                wl = workloads.get((dep.sub.namespace, pod_name))
                untried = wl is not None and status(wl, "QuotaReserved")[0] == ""
                if untried and now_wall - self.first_seen.setdefault(pod_name, now_wall) >= self.quiet:
                    queued = True  # as for a job's Workload above
                elif wl is None or untried:
                    self.why = f"{name}: pod {pod_name}: {'no Workload' if wl is None else 'Workload not yet tried'}"
                    return True, False, False
                elif condition(wl, "QuotaReserved") is None:
                    queued = True
                elif condition(wl, "Evicted"):
                    self.why = f"{name}: pod {pod_name} evicted, quota not yet released"
                    return True, False, False
                elif pod.get("status", {}).get("phase") != "Running":
                    if self.lost_nodes and unschedulable(pod):
                        waiting = True
                        continue
                    self.why = f"{name}: pod {pod_name} admitted, not Running"
                    return True, False, False
        return False, queued, waiting

    def end_stuck(self, pods: Sequence[Obj], t: float) -> None:
        """Mark Failed the pods deleted at least ``STUCK`` wall seconds ago whose phase is not terminal."""
        seen: dict[str, float] = {}
        for pod in pods:
            meta = pod["metadata"]
            if "deletionTimestamp" not in meta or pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                continue
            if pod.get("spec", {}).get("nodeName", "") in self.silent:
                continue  # on a lost node nothing ends it until the repair (failures.py)
            key = f"{meta.get('namespace', '')}/{meta['name']}"
            seen[key] = self.deleting.get(key, t)
            if t - seen[key] < STUCK:
                continue
            condition = {"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet",
                         "message": "the runner ended a deleted pod kwok left running"}  # fmt: skip
            try:
                self.api.patch_status(f"/api/v1/namespaces/{meta.get('namespace', '')}/pods/{meta['name']}",
                                      {"status": {"phase": "Failed", "conditions": [condition]}})  # fmt: skip
                self.timing["stuck_pods"] += 1
            except ApiError as err:
                self.notes.append(f"{key}: ending a deleted pod: {err}")
            seen.pop(key)
        self.deleting = seen

    def complete_pods(self, st: JobState) -> None:
        super().complete_pods(st)
        self.actions += 1
