"""The virtual clock (simulate/virtual.py): which simulated time comes next, when the control plane
counts as settled, and that what happens while it settles is logged at the jump's time with exact work
accounting. A fake control plane stands in for the twin (one step of its chain per poll of the
Workloads) and a fake wall clock for time: the question is what the runner does, not the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import load_environment
from gke_accel.simulate.failures import Failure
from gke_accel.simulate.objects import JOB_LABEL
from gke_accel.simulate.trace import parse_trace
from gke_accel.simulate.virtual import VirtualRunner, expected_loss
from helpers import FakeClock

CONFIG = Path(__file__).resolve().parents[2] / "config"
H, MIN = 3600.0, 60.0
Obj = dict[str, Any]


class Plane:
    """Kueue, the Job controller, the scheduler and kwok in one: ``capacity`` one-GPU jobs at a time,
    admitted in submission order; a job in ``preemptors`` that finds no room evicts the newest running
    other job. Like Kueue, a new Workload is tried at once (QuotaReserved False if it does not fit) and
    one found inadmissible is tried again only ``requeue`` polls after quota is released (finished,
    evicted). Each list of the Workloads moves every job one step along created -> pending ->
    reserved (pods Pending) -> running, done (the runner completed its pod) -> succeeded (the Job
    controller saw it) -> finished, evicting
    (Evicted, pods terminating) -> pending."""

    def __init__(self, capacity: int = 1, preemptors: frozenset[str] = frozenset(), stuck: bool = False,
                 requeue: int = 0, bypass: bool = False) -> None:  # fmt: skip
        self.capacity, self.preemptors, self.stuck, self.requeue = capacity, preemptors, stuck, requeue
        # bypass: as Kueue 0.19's SchedulingEquivalenceHashing, a Workload found inadmissible gets no
        # condition at all (pkg/controller/core/workload_controller.go, shouldCheckEquivalenceHash)
        self.bypass = bypass
        self.jobs: dict[str, dict[str, Any]] = {}  # name -> {"ns", "state", "tried": poll or None}
        self.order: list[str] = []
        self.polls = 0
        self.released = -1  # poll of the last quota release

    def tick(self) -> None:
        self.polls += 1
        if self.stuck:
            return
        held = ("reserved", "running", "done", "succeeded", "evicting")
        holding = [n for n in self.order if self.jobs.get(n, {}).get("state") in held]
        for name in [n for n in self.order if n in self.jobs]:
            job = self.jobs[name]
            state = job["state"]
            if state == "created":
                job["state"] = "pending"
            elif state == "pending":
                tried = job["tried"]
                if tried is not None and not (self.released > tried and self.polls >= self.released + self.requeue):
                    continue  # inadmissible: waits for a requeue
                job["tried"] = self.polls
                if len(holding) < self.capacity:
                    job["state"] = "reserved"
                    holding.append(name)
                elif name in self.preemptors:
                    victims = [n for n in holding if n not in self.preemptors and self.jobs[n]["state"] == "running"]
                    if victims:
                        self.jobs[victims[-1]]["state"] = "evicting"
            elif state == "reserved":
                job["state"] = "running"
            elif state == "done":
                job["state"] = "succeeded"
            elif state == "succeeded":
                job["state"] = "finished"
                holding.remove(name)  # a job after it in this poll sees the quota free
                self.released = self.polls
            elif state == "evicting":
                job["state"], job["tried"] = "pending", self.polls
                holding.remove(name)
                self.released = self.polls

    # ---- the Api the runner uses ----------------------------------------------------------------
    def items(self, path: str) -> list[Obj]:
        if path.endswith("/workloads"):
            self.tick()
            return [self.workload(n) for n in self.order if n in self.jobs and self.jobs[n]["state"] != "created"]
        if "/pods" in path:
            names = [n for n in self.order if n in self.jobs]
            if "%3D" in path:
                names = [n for n in names if n == path.rsplit("%3D", 1)[1]]
            return [p for n in names for p in self.pods(n)]
        return []  # nodes

    def workload(self, name: str) -> Obj:
        state = self.jobs[name]["state"]
        conds = []
        if state in ("reserved", "running", "done", "succeeded", "finished", "evicting"):
            conds.append({"type": "QuotaReserved", "status": "True"})
        if state == "evicting":
            conds.append({"type": "Evicted", "status": "True", "reason": "Preempted"})
        if state == "finished":
            conds.append({"type": "Finished", "status": "True"})
        if state == "pending" and self.jobs[name]["tried"] is not None and not self.bypass:
            conds.append({"type": "QuotaReserved", "status": "False", "reason": "Pending"})
        return {"metadata": {"namespace": self.jobs[name]["ns"], "ownerReferences": [{"name": name}]},
                "status": {"conditions": conds,
                           "admission": {"podSetAssignments": [{"flavors": {"nvidia.com/gpu": "l4"}}]}}}  # fmt: skip

    def pods(self, name: str) -> list[Obj]:
        state = self.jobs[name]["state"]
        phase = {"reserved": "Pending", "running": "Running", "evicting": "Running"}.get(state, "Succeeded")
        if state in ("created", "pending"):
            return []
        meta: Obj = {"name": f"{name}-0", "namespace": self.jobs[name]["ns"], "labels": {JOB_LABEL: name}}
        if state == "evicting":
            meta["deletionTimestamp"] = "now"
        return [{"metadata": meta, "status": {"phase": phase},
                 "spec": {"containers": [{"name": "main", "image": "x",
                                          "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}]  # fmt: skip

    def create(self, obj: Obj) -> None:
        name = obj["metadata"]["name"]
        self.jobs[name] = {"ns": obj["metadata"]["namespace"], "state": "created", "tried": None}
        self.order.append(name)

    def patch_status(self, path: str, body: Obj) -> None:
        name = path.rsplit("/", 1)[1].removesuffix("-0")
        assert body["status"]["phase"] == "Succeeded" and self.jobs[name]["state"] == "running"
        self.jobs[name]["state"] = "done"

    def delete(self, path: str) -> None:
        self.jobs.pop(path.rsplit("/", 1)[1], None)


def runner(plane: Plane, trace: str, quiet: float = 0.8, until: float | None = None,
           resolution: float = 0.0) -> tuple[VirtualRunner, FakeClock]:  # fmt: skip
    plan = load_environment(CONFIG / "staging.yaml")
    clock = FakeClock()
    jobs = parse_trace("name,submit,team,accelerator,chips,duration,priority,checkpoint\n" + trace, "t.csv")
    r = VirtualRunner(plane, plan, jobs, quiet=quiet, poll=0.1, bound=30.0, until=until,  # type: ignore[arg-type]
                      resolution=resolution, clock=clock, epoch=clock, sleep=clock.sleep)  # fmt: skip
    return r, clock


def log(r: VirtualRunner) -> list[tuple[float, str, str, int]]:
    return [(e.t, e.job, e.type, e.chips) for e in r.events]


def test_the_next_event_is_the_earliest_submission_run_end_failure_or_repair_capped_by_the_horizon() -> None:
    r, _ = runner(Plane(), "a,0,nlp,l4,1,1h,,\nb,2h,nlp,l4,1,1h,,\n", until=10 * H)
    a, b = r.jobs["a"], r.jobs["b"]
    assert r.next_event(-1.0) == 0.0  # a's submission
    a.submitted, a.run_start, a.saved = True, 10 * MIN, 20 * MIN  # 40 min of work left from 10 min on
    assert r.next_event(10 * MIN) == 50 * MIN
    r.repairs.append((30 * MIN, ("n1",)))
    r.failures = [Failure(40 * MIN, ("n2",)), Failure(45 * MIN, ("n3",))]
    assert r.next_event(10 * MIN) == 30 * MIN
    assert r.next_event(30 * MIN) == 40 * MIN  # the repair at 30 min is applied at 30 min, not again
    r.repairs.clear()
    r.failures.clear()
    assert r.next_event(50 * MIN) == 2 * H  # a is due now (handled at this jump); next: b's submission
    a.run_start, a.finished, b.submitted = None, True, True
    assert r.next_event(50 * MIN) == 10 * H  # nothing left but the horizon
    assert r.next_event(10 * H) == 10 * H


def test_every_change_while_settling_is_logged_at_the_jump_time_and_a_quiet_plane_needs_no_quiet_wait() -> None:
    plane = Plane()
    r, clock = runner(plane, "a,0,nlp,l4,1,1h,,\n")
    # the submission names the chips the job asks for (the trace's 1 L4): goodput counts them while it waits
    result = r.run()
    assert log(r) == [(0.0, "a", "submitted", 1), (0.0, "a", "admitted", 1), (0.0, "a", "running", 1),
                      (H, "a", "running", 0), (H, "a", "finished", 0)]  # fmt: skip
    assert result.until == H and result.timing["quiet_waits"] == 0 and result.timing["bound_hits"] == 0
    assert clock.t < 2.0  # a handful of 0.1 s polls: the chain, never a quiet period


def polls_of(r: VirtualRunner, clock: FakeClock) -> dict[float, list[float]]:
    polls: dict[float, list[float]] = {}  # simulated time -> wall times of its polls
    r.on_tick = lambda now: polls.setdefault(now, []).append(clock.t)
    return polls


def test_a_workload_waiting_for_quota_gets_a_quiet_period_after_quota_is_released_and_only_then() -> None:
    plane = Plane(capacity=1, requeue=3)  # Kueue's requeue batch: 3 polls of 0.1 s
    r, clock = runner(plane, "a,0,nlp,l4,1,1h,,\nb,0,nlp,l4,1,2h,,\nc,2h,nlp,l4,1,1h,,\n", quiet=0.5)
    polls = polls_of(r, clock)
    result = r.run()
    ev = log(r)
    assert [(t, job) for t, job, kind, _ in ev if kind == "admitted"] == [(0.0, "a"), (H, "b"), (3 * H, "c")]
    assert (H, "b", "running", 1) in ev and ev[-1] == (4 * H, "c", "finished", 0)
    # at 0 b was tried and found no room, and no quota was released: nothing to wait for
    assert polls[0.0][-1] - polls[0.0][0] < 0.5
    # at 2 h c is tried and waits (b runs); no quota released: no quiet period either
    assert polls[2 * H][-1] - polls[2 * H][0] < 0.5
    # at 1 h a's quota is released with b waiting: the settle lasts a quiet period after the release
    assert polls[H][-1] - polls[H][0] >= 0.5
    assert result.timing["bound_hits"] == 0 and not result.notes


def test_a_workload_kueue_sets_aside_without_a_condition_waits_for_quota_after_the_quiet_period() -> None:
    # Kueue 0.19 writes no condition on a new Workload equivalent to one that found no fit: b, tried at
    # 0 and set aside silently, counts as waiting for quota once it has gone the quiet period unadmitted
    # (the runner once waited the 30-s bound for it, at 36 of 51 events of a 25-job day)
    plane = Plane(capacity=1, requeue=3, bypass=True)
    r, clock = runner(plane, "a,0,nlp,l4,1,1h,,\nb,0,nlp,l4,1,2h,,\n", quiet=0.5)
    polls = polls_of(r, clock)
    result = r.run()
    assert [(t, job) for t, job, kind, _ in log(r) if kind == "admitted"] == [(0.0, "a"), (H, "b")]
    assert 0.5 <= polls[0.0][-1] - polls[0.0][0] < 1.0  # the quiet period, not the bound
    assert result.timing["bound_hits"] == 0 and not result.notes


def test_a_workload_not_yet_tried_within_the_quiet_period_is_waited_for() -> None:
    plane = Plane(capacity=1, bypass=True)
    r, _ = runner(plane, "a,0,nlp,l4,1,1h,,\n", quiet=0.5)
    st = r.jobs["a"]
    st.submitted = True
    untried = {("nlp", "a"): {"metadata": {"namespace": "nlp"}, "status": {"conditions": [
        {"type": "PodsReady", "status": "False", "reason": "WaitForStart"}]}}}  # fmt: skip
    assert r.state(untried, [], 10.0) == (True, False, False)  # first seen at 10 s: Kueue's turn
    assert r.state(untried, [], 10.4) == (True, False, False)
    assert r.state(untried, [], 10.5) == (False, True, False)  # the quiet period without a verdict: queued
    assert "Workload not yet tried (PodsReady False WaitForStart)" in r.why


def test_a_quiet_period_shorter_than_kueues_requeue_misses_the_admission() -> None:
    plane = Plane(capacity=1, requeue=8)  # 0.8 s of polls before Kueue tries b again
    r, _ = runner(plane, "a,0,nlp,l4,1,1h,,\nb,0,nlp,l4,1,2h,,\nc,90m,nlp,l4,1,1h,,\n", quiet=0.3)
    r.run()
    admitted = [(t, job) for t, job, kind, _ in log(r) if kind == "admitted"]
    # the settle at 1 h ended before Kueue retried b: b is not admitted at 1 h, and c, submitted at 90 min
    # into the still idle GPU, goes first; why ``quiet`` must exceed Kueue's 1 s requeue batch
    assert (H, "b") not in admitted and admitted[1] == (90 * MIN, "c")


def test_a_preemption_while_settling_loses_the_work_since_the_checkpoint_at_the_jump_time() -> None:
    plane = Plane(capacity=1, preemptors=frozenset({"b"}))
    r, _ = runner(plane, "a,0,nlp,l4,1,2h,,20m\nb,50m,serving,l4,1,1h,inference,\n")
    r.run()
    ev = r.events
    (evicted,) = [e for e in ev if e.type == "evicted"]
    assert (evicted.t, evicted.job, evicted.detail) == (50 * MIN, "a", "preempted")
    assert evicted.lost == pytest.approx(10 * MIN)  # ran 50 min, checkpointed at 20 and 40
    assert [(e.t, e.type) for e in ev if e.job == "b"][1:3] == [(50 * MIN, "admitted"), (50 * MIN, "running")]
    # a again when b ends at 1 h 50 min, needing 2 h - 40 min = 80 min more: done at 3 h 10 min
    assert [e.t for e in ev if e.job == "a" and e.type == "admitted"] == [0.0, 110 * MIN]
    assert [e.t for e in ev if e.job == "a" and e.type == "finished"] == [pytest.approx(190 * MIN)]


def test_a_plane_that_never_settles_is_left_after_the_bound_and_noted() -> None:
    plane = Plane(stuck=True)  # Kueue never makes the Workload: the submitted job stays mid-chain
    r, clock = runner(plane, "a,0,nlp,l4,1,1h,,\n", until=2 * H)
    result = r.run()
    assert result.timing["bound_hits"] >= 1
    assert any("had not settled after 30" in n and "(first: 0s: a: no Workload" in n for n in result.notes)
    assert clock.t >= 30.0


def test_a_deleted_pod_kwok_leaves_running_is_marked_failed_after_the_stuck_time_as_a_kubelet_would() -> None:
    plane = Plane()
    patched: list[tuple[str, Obj]] = []
    plane.patch_status = lambda path, body: patched.append((path, body))  # type: ignore[method-assign]
    r, _ = runner(plane, "a,0,nlp,l4,1,1h,,\n")
    meta = {"namespace": "nlp", "deletionTimestamp": "x"}
    pod: Obj = {"metadata": {"name": "a-0", **meta}, "status": {"phase": "Running"}}
    done: Obj = {"metadata": {"name": "a-1", **meta}, "status": {"phase": "Failed"}}
    r.end_stuck([pod, done], 10.0)
    r.end_stuck([pod, done], 12.9)
    assert patched == []  # deleted 2.9 s ago: the kubelet (here nobody) may still report
    r.end_stuck([pod, done], 13.0)
    ((path, body),) = patched
    assert path == "/api/v1/namespaces/nlp/pods/a-0" and body["status"]["phase"] == "Failed"
    assert body["status"]["conditions"][0]["type"] == "DisruptionTarget" and r.timing["stuck_pods"] == 1


def test_each_jump_starts_in_a_new_wall_second_so_kueues_whole_second_timestamps_keep_simulated_order() -> None:
    plane = Plane(capacity=1)
    r, clock = runner(plane, "a,0,nlp,l4,1,1h,,\nb,10m,nlp,l4,1,1h,,\nc,20m,nlp,l4,1,1h,,\n")
    created: list[float] = []
    create = plane.create
    plane.create = lambda obj: (created.append(clock.t), create(obj))[1]  # type: ignore[method-assign]
    r.run()
    seconds = [int(t) for t in created]
    assert seconds == sorted(set(seconds)) and len(seconds) == 3  # b and c: creationTimestamps a second apart


def test_a_jump_after_a_quiet_wait_starts_at_once_and_one_after_a_change_waits_for_the_next_second() -> None:
    # capacity 1: a runs, b and c wait. At 1 h a ends, b is admitted and c still waits, so the settle
    # waits 1.5 s quiet after the release: its last change is over a second old and the jump at 2 h
    # (b's end) starts at once. That one ends on a change (c running): the jump at 3 h waits for a new second.
    plane = Plane(capacity=1, requeue=1)
    r, _ = runner(plane, "a,0,nlp,l4,1,1h,,\nb,10m,nlp,l4,1,1h,,\nc,20m,nlp,l4,1,1h,,\n", quiet=1.5)
    waited: dict[float, float] = {}
    apply = r.apply

    def record(now: float) -> None:
        waited[now] = r.timing["sleep_second"] - sum(waited.values())
        apply(now)

    r.apply = record  # type: ignore[method-assign]
    r.run()
    assert waited[2 * H] == 0.0
    assert waited[3 * H] > 0.0
    assert [e for e in log(r) if e[2] == "running" and e[3]] == [(0.0, "a", "running", 1), (H, "b", "running", 1),
                                                        (2 * H, "c", "running", 1)]  # fmt: skip


def test_on_hourly_steps_the_next_event_is_the_nearest_step_ties_the_earlier_and_never_the_current_one() -> None:
    r, _ = runner(Plane(), "a,40m,nlp,l4,1,1h,,\nb,5h,nlp,l4,1,1h,,\n", until=10 * H, resolution=H)
    a, b = r.jobs["a"], r.jobs["b"]
    assert r.next_event(0.0) == H  # a's submission at 40 min: nearer 1 h than 0
    a.submitted, a.run_start = True, H
    assert r.next_event(H) == 2 * H  # a started at 1 h with 1 h of work
    a.saved = 50 * MIN  # 10 min left: less than half a step, yet a run lasts a step
    assert r.next_event(H) == 2 * H
    a.saved = 0.0
    r.failures = [Failure(H + 90 * MIN, ("n1",))]  # 2 h 30: a tie, the earlier step
    assert r.next_event(H) == 2 * H
    r.failures, r.repairs = [], [(H + 10 * MIN, ("n1",))]  # a loss at 1 h is repaired at the next step
    a.run_start = None
    assert r.next_event(H) == 2 * H
    r.repairs, a.finished = [], True
    assert r.next_event(H) == 5 * H  # b
    b.submitted = b.finished = True
    assert r.next_event(5 * H) == 10 * H  # the horizon
    r.until = 5.5 * H
    assert r.next_event(5 * H) == 5.5 * H  # the horizon, between steps


def test_on_hourly_steps_submissions_and_ends_happen_at_the_nearest_step_and_a_short_run_lasts_one() -> None:
    # two GPUs. a (0, 1 h 20) ends at 1 h; d (25 min: step 0, 1 h) too; b (40 min: step 1 h) runs its
    # 10 min until 2 h, the next step; c (2 h 30: a tie, step 2 h) runs 1 h 29 to 3 h 29: step 3 h.
    plane = Plane(capacity=2)
    trace = "a,0,nlp,l4,1,1h20m,,\nb,40m,nlp,l4,1,10m,,\nc,2h30m,nlp,l4,1,1h29m,,\nd,25m,nlp,l4,1,1h,,\n"
    r, _ = runner(plane, trace, resolution=H)
    result = r.run()
    ev = log(r)

    def at(kind: str) -> dict[str, float]:
        return {job: t for t, job, k, _ in ev if k == kind}

    assert at("submitted") == {"a": 0.0, "d": 0.0, "b": H, "c": 2 * H}
    assert at("admitted") == {"a": 0.0, "d": 0.0, "b": H, "c": 2 * H}
    assert at("finished") == {"a": H, "d": H, "b": 2 * H, "c": 3 * H}
    assert result.timing["jumps"] == 4  # 0, 1 h, 2 h, 3 h: exact, the same trace takes 8 jumps
    exact, _ = runner(Plane(capacity=2), trace)
    assert exact.run().timing["jumps"] == 8  # 0, 25 m, 40 m, 1 h 20 (b in), 1 h 25, 1 h 30, 2 h 30, 3 h 59


def test_the_expected_loss_since_the_last_checkpoint_over_a_step_is_the_mean_of_the_sawtooth() -> None:
    # ran 1 h +- 30 min, a checkpoint every 30 min: x mod 30 min is a whole number of sawtooth teeth,
    # mean 15 min; every 20 min: three teeth, mean 10 min
    assert expected_loss(H, 30 * MIN, H) == pytest.approx(15 * MIN)
    assert expected_loss(H, 20 * MIN, H) == pytest.approx(10 * MIN)
    # ran 2 h +- 30 min, every 3 h: no checkpoint in reach, all of it lost on average: 2 h
    assert expected_loss(2 * H, 3 * H, H) == pytest.approx(2 * H)
    # ran 1 h +- 30 min, every 1 h: (integral of x over 30-60 min, + of x - 60 over 60-90 min) / 60 min
    assert expected_loss(H, H, H) == pytest.approx(((60**2 - 30**2) / 2 + 30**2 / 2) / 60 * MIN)


def test_on_hourly_steps_a_preemption_keeps_the_checkpoints_of_its_run_on_average_over_the_step() -> None:
    # a (2 h, checkpoint 20 min) from 0; b (inference, 50 min: step 1 h) preempts it at 1 h. a ran 1 h
    # +- 30 min: it loses 10 min on average (not 0, the step's own multiple of 20 min) and keeps 50
    # min. b runs 1 h - 2 h; a then needs 2 h - 50 min = 70 min: ends at 3 h 10, step 3 h.
    plane = Plane(capacity=1, preemptors=frozenset({"b"}))
    r, _ = runner(plane, "a,0,nlp,l4,1,2h,,20m\nb,50m,serving,l4,1,1h,inference,\n", resolution=H)
    r.run()
    (evicted,) = [e for e in r.events if e.type == "evicted"]
    assert (evicted.t, evicted.job, evicted.detail) == (H, "a", "preempted")
    assert evicted.lost == pytest.approx(10 * MIN)
    assert [e.t for e in r.events if e.job == "a" and e.type == "admitted"] == [0.0, 2 * H]
    assert [e.t for e in r.events if e.job == "a" and e.type == "finished"] == [3 * H]
