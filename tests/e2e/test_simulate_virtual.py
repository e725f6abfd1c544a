"""``gke-accel simulate`` on the virtual clock (simulate/virtual.py), on the real twin of staging as
shipped (config/staging.yaml; each team's cpu/memory quota derived from the chips it may hold,
model/teams/compute.py, so chips, not cpu, bind): Kueue 0.19.2, JobSet 0.12.0, kwok nodes at every pool's
maximum size (4 v5e 2x4 slices = 32 chips in flavor v5e-2x4, 5 L4s on its L4 ladder).

The control plane reacts in 0 simulated seconds: each change is logged at the simulated time of the
event that caused it, so the hand-computed times below hold to TOLERANCE (1 simulated minute), not to
the wall clock's reaction time. Every expected value follows from the config and Kueue's documented
semantics (docs/queues.md "Preemption: the promise across the cohort"), not from the runner.
"""

from __future__ import annotations

import pytest
import test_simulate

from gke_accel.simulate import failures
from gke_accel.simulate.api import Api
from gke_accel.simulate.events import Event
from gke_accel.simulate.metrics import Metrics, compute
from gke_accel.simulate.objects import JOB_LABEL
from gke_accel.simulate.policy import flavor_capacity, nominal_quotas
from gke_accel.simulate.runner import KUEUE
from gke_accel.simulate.trace import parse_trace
from gke_accel.simulate.virtual import VirtualRunner
from gke_accel.twin.environment import EnvironmentRun

MIN = 60.0
H = 3600.0
TOLERANCE = 1 * MIN


# the twin of staging as shipped and a client of it, one per module (fixtures of test_simulate.py)
twin = test_simulate.twin
api = test_simulate.api


def times(events: list[Event], job: str, kind: str) -> list[float]:
    return [e.t for e in events if e.job == job and e.type == kind]


def near(found: list[float], expected: list[float], events: list[Event]) -> bool:
    ok = len(found) == len(expected) and all(abs(f - e) <= TOLERANCE for f, e in zip(found, expected, strict=True))
    if not ok:
        print("\n".join(f"{e.t / MIN:7.1f} min {e.job} {e.type} {e.chips} {e.detail} {e.lost}" for e in events))
    return ok


def metrics_of(api: Api, events: list[Event], horizon: float) -> Metrics:
    capacity, resource = flavor_capacity(api.items(f"{KUEUE}/resourceflavors"), api.items("/api/v1/nodes"))
    nominal = nominal_quotas(api.items(f"{KUEUE}/clusterqueues"), {t: t for t in ("nlp", "research", "serving")})
    return compute(events, horizon=horizon, capacity=capacity, resource_of=resource, nominal=nominal)


FIVE = """name,submit,team,accelerator,chips,duration,priority,checkpoint,slices
a,0,nlp,v5e,8,1h,,30m,2
r1,1m,research,v5e,8,3h,,30m,1
s1,2m,serving,v5e,8,3h,inference,,1
r2,10m,research,v5e,8,2h,,20m,1
s2,1h30m,serving,v5e,8,1h,inference,,2
"""


def test_five_jobs_borrow_wait_and_are_preempted_as_kueue_documents_on_the_virtual_clock(
    api: Api, twin: EnvironmentRun
) -> None:
    """Nominal v5e quotas (config): nlp 16, research 8 (may borrow 16), serving 8 (preempt_when_borrowing:
    borrowWithinCohort LowerPriority up to training); training is the default class; a v5e JobSet slice
    holds 8 chips, ``slices: 2`` 16. (r1 and s1 come a minute apart: JobSets admitted at the same moment
    race for slices in the twin, whose scheduler may put two leaders on one slice; JobSet then deletes
    one and retries, which takes the 30 s termination grace period.)
    - 0, 1, 2 min: a (nlp 16), r1 (research 8), s1 (serving inference 8) fit their nominal: admitted, 32/32.
    - 10 min: r2 (research) must borrow and nothing is unused; it may not preempt (r1 is its own queue's
      training, same priority; research has no borrowWithinCohort): waits.
    - 1 h: a ends, 16 unused: r2 borrows 8 (within its limit), admitted: wait 50 min.
    - 1 h 30: s2 (serving inference, 16) must borrow 16 with 8 unused: borrowWithinCohort may preempt
      lower-priority training of a queue above its nominal: research (16 of 8). Kueue takes a queue only
      down to its nominal, so one job, and of equal priority the most recently admitted (Kueue's
      preemption candidates order: lower priority, then shorter time since admission): r2 (1 h, r1 1
      min), which ran 30
      min, keeps its 20-min checkpoint, loses 10 min, and needs 2 h - 20 min = 100 min more.
    - 2 h 30: s2 ends, 16 unused: r2 borrows again, done at 4 h 10. r1 and s1 end at 3 h 1 and 3 h 2.
    Over 4.5 h: TPU chip-hours a 16 + r1 24 + s1 24 + s2 16 + r2 8 x (30 + 100) min = 97.33 of 144
    -> 67.6%. Borrowed: research 8 x 30 min (1 h - 1 h 30) + 8 x 31 min (2 h 30 - 3 h 1) = 8.13 chip-h;
    serving 16 x 1 h (1 h 30 - 2 h 30) = 16 chip-h; lost 8 chips x 10 min = 1.33 chip-h."""
    jobs = parse_trace(FIVE, "five.csv")
    result = VirtualRunner(api, twin.plan, jobs, until=4.5 * H).run()
    ev = result.events
    assert not result.notes, result.notes
    assert near(times(ev, "a", "admitted") + times(ev, "a", "finished"), [0, 1 * H], ev)
    assert near(times(ev, "r1", "admitted") + times(ev, "r1", "finished"), [1 * MIN, 3 * H + 1 * MIN], ev)
    assert near(times(ev, "s1", "admitted") + times(ev, "s1", "finished"), [2 * MIN, 3 * H + 2 * MIN], ev)
    assert near(times(ev, "s2", "admitted") + times(ev, "s2", "finished"), [1.5 * H, 2.5 * H], ev)
    assert near(times(ev, "r2", "admitted"), [1 * H, 2.5 * H], ev)
    assert near(times(ev, "r2", "finished"), [4 * H + 10 * MIN], ev)
    (evicted,) = [e for e in ev if e.type == "evicted"]
    assert (evicted.job, evicted.detail) == ("r2", "preempted") and abs(evicted.t - 1.5 * H) <= TOLERANCE
    assert evicted.lost == pytest.approx(10 * MIN, abs=TOLERANCE)
    assert {e.flavor for e in ev if e.type == "admitted"} == {"v5e-2x4"}
    m = metrics_of(api, ev, 4.5 * H)
    chip_hours = 16 + 24 + 24 + 16 + 8 * 130 / 60
    assert m.by_resource["google.com/tpu"] == pytest.approx(chip_hours / 144, abs=8 * TOLERANCE / H / 144 * 5)
    research, serving, nlp = (m.teams[t].summary() for t in ("research", "serving", "nlp"))
    # r2 waited 50 min for its first admission and, preempted at 1 h 30, 1 h more until 2 h 30: 110 min in
    # all (waits include re-queueing); r1 0. Two jobs: the p95 is the worst
    assert research["wait_p95_h"] == pytest.approx(110 / 60, abs=2 * TOLERANCE / H) and research["wait_p95_is_max"]
    assert research["first_wait_p95_h"] == pytest.approx(50 / 60, abs=TOLERANCE / H)
    assert research["preempted"] == 1 and research["finished"] == 2
    assert serving["wait_max_h"] <= TOLERANCE / H and nlp["wait_max_h"] <= TOLERANCE / H
    assert research["borrowed_chip_h"] == pytest.approx(8 * 61 / 60, abs=16 * TOLERANCE / H)
    assert serving["borrowed_chip_h"] == pytest.approx(16, abs=16 * TOLERANCE / H)
    assert nlp["borrowed_chip_h"] == 0 and research["lost_chip_h"] == pytest.approx(8 * 10 / 60, abs=8 * TOLERANCE / H)


DETECT = 50 + 300  # s: GKE's --node-monitor-grace-period + --default-unreachable-toleration-seconds (the
# kube-controller-manager and kube-apiserver 1.33 defaults, their --help): a lost node's pods go 5 min 50 s
# after the loss; the repair (failures.REPAIR, an input) is 10 min after it
LOSS_TRACE = "name,submit,team,accelerator,chips,duration,checkpoint\nlost,0,nlp,{acc},{chips},2h,30m\n"


def lose_where_it_runs(runner: VirtualRunner, api: Api, job: str, at: float) -> None:
    """Once ``job``'s pods run, schedule the loss at ``at`` of the failure unit (slice or node) under them."""

    scheduled: list[failures.Failure] = []

    def watch(_: float) -> None:
        if scheduled:
            return
        nodes = {p["spec"].get("nodeName") for p in api.items(f"/api/v1/pods?labelSelector={JOB_LABEL}%3D{job}")
                 if p.get("status", {}).get("phase") == "Running"}  # fmt: skip
        units = [u for u in failures.failure_units(api.items("/api/v1/nodes")) if nodes & set(u)]
        if units:
            scheduled.append(failures.Failure(at, tuple(n for u in units for n in u)))
            runner.failures = list(scheduled)

    runner.on_tick = watch


def stranded_only(notes: list[str], events: list[Event]) -> bool:
    """No note but the runner's ending of pods stranded on the lost nodes once they are back (kwok,
    managing them again, leaves a deleted pod Running; the runner ends it as the node's kubelet would)."""
    ok = all("deleted pods stayed Running" in n for n in notes)
    if not ok:
        print("\n".join(f"{e.t / MIN:7.2f} min {e.job} {e.type} {e.chips} {e.detail} {e.lost}" for e in events))
    return ok


def test_a_lost_slice_is_detected_by_the_engines_kueue_readmits_the_job_at_once_and_it_runs_after_the_repair(
    api: Api, twin: EnvironmentRun
) -> None:
    """One 8-chip JobSet of 2 h that checkpoints every 30 min, on staging's v5e flavor (slice topology).
    At 55 min the slice under it is lost. Its pods stay Running until 55 min + 5 min 50 s = 60 min 50 s,
    when the nodes fall silent and the engines evict them (node-lifecycle, taint-eviction): the run ran
    60 min 50 s, keeps the one checkpoint written before the loss (30 min), loses 30 min 50 s. Kueue's
    TAS node controller sees the pods terminating on NotReady nodes and evicts the Workload (NodeFailures,
    no requeueAt backoff); three slices are free, so Kueue admits it again at the same minute (both may
    fall between two of the runner's polls: the test reads Kueue's conditions at every poll). But its
    child Job still has the evicted pods, Terminating on the dead nodes, and a Job with a podFailurePolicy
    replaces a pod only once it is terminal: nothing runs until the repair (65 min), when the pods end
    and the JobSet runs again for the 1 h 30 min left: done at 2 h 35 min."""
    jobs = parse_trace(LOSS_TRACE.format(acc="v5e", chips=8), "f.csv")
    runner = VirtualRunner(api, twin.plan, jobs, until=4 * H)
    lose_where_it_runs(runner, api, "lost", 55 * MIN)
    lose = runner.on_tick
    seen: set[tuple[str, str, str]] = set()

    def watch(now: float) -> None:  # Kueue's conditions on the Workload at every poll (its eviction and
        assert lose is not None  # readmission may both fall between two polls: no event of the runner's)
        lose(now)
        for wl in api.items(f"{KUEUE}/namespaces/nlp/workloads"):
            seen.update((c["type"], c["status"], c.get("reason", "")) for c in wl["status"].get("conditions", []))

    runner.on_tick = watch
    result = runner.run()
    ev = result.events
    assert stranded_only(result.notes, ev), result.notes
    assert {("Evicted", "True", "NodeFailures"), ("Requeued", "True", "NodeFailures")} & seen, seen
    loss = 55 * MIN + DETECT
    lost = [e for e in ev if e.type == "evicted" and e.detail == "node-failure"]
    assert len(lost) == 1, "\n".join(str((e.t, e.type, e.detail, e.flavor, e.lost)) for e in ev)
    assert lost[0].t == pytest.approx(loss, abs=1e-6)
    assert lost[0].lost == pytest.approx(loss - 30 * MIN, abs=1e-6)  # exact: both ends are event times
    # Kueue's own eviction, if a poll saw it, and its readmission at the same minute (nothing more lost)
    assert all((e.t, e.lost) == (loss, 0.0) for e in ev if e.type == "evicted" and e.detail != "node-failure")
    assert set(times(ev, "lost", "admitted")) <= {0.0, loss} and times(ev, "lost", "admitted")[0] == 0
    runs = [e.t for e in ev if e.type == "running" and e.chips == 8]
    assert runs[0] == 0 and runs[-1] == pytest.approx(65 * MIN, abs=1e-6)
    assert times(ev, "lost", "finished") == [pytest.approx(155 * MIN, abs=1e-6)]


def test_a_lost_gpu_node_strands_the_pod_until_the_repair_and_the_job_runs_again_after_it(
    api: Api, twin: EnvironmentRun
) -> None:
    """One 1-GPU job of 2 h (checkpoint 30 min) on staging's L4 ladder (no topology). At 55 min its node
    is lost; at 60 min 50 s the engines evict the pod (the run ends: 60 min 50 s, keeps 30 min, loses 30
    min 50 s). Nothing reports it Failed on a dead node, so the Job (podFailurePolicy: terminal pods only)
    waits: Kueue keeps it admitted. At the repair (65 min) the node is back, the pod ends, the Job
    recreates it and it runs the 1 h 30 min left: done at 2 h 35 min."""
    jobs = parse_trace(LOSS_TRACE.format(acc="l4", chips=1), "f.csv")
    runner = VirtualRunner(api, twin.plan, jobs, until=4 * H)
    lose_where_it_runs(runner, api, "lost", 55 * MIN)
    result = runner.run()
    ev = result.events
    assert stranded_only(result.notes, ev), result.notes
    (lost,) = [e for e in ev if e.type == "evicted"]
    assert lost.detail == "node-failure" and lost.t == pytest.approx(55 * MIN + DETECT, abs=1e-6)
    assert lost.lost == pytest.approx(55 * MIN + DETECT - 30 * MIN, abs=1e-6)
    runs = [e.t for e in ev if e.type == "running" and e.chips == 1]
    assert runs[0] == 0 and runs[-1] == pytest.approx(65 * MIN, abs=1e-6)
    assert times(ev, "lost", "finished") == [pytest.approx(155 * MIN, abs=1e-6)]
    assert times(ev, "lost", "admitted") == [0.0]


def test_on_half_hour_steps_a_lost_slice_is_applied_at_the_nearest_step_and_loses_the_mean_since_a_checkpoint(
    api: Api, twin: EnvironmentRun
) -> None:
    """The JobSet of the first node-loss test on 30-minute steps. The loss at 55 min is applied at 1 h;
    its silence (5 min 50 s later) and its repair (10 min after the loss) both come at the next step,
    1 h 30: the nodes fall silent there and the engines evict the pods; the repair waits for the step
    after, 2 h (a node is back only after the engines saw it silent). The run's length is known to half
    a step: it ran 1 h 30 and lost its node 1 h +- 15 min in; with a checkpoint every 30 min the work
    since the last one before the loss is on average (22.5 min over 45-60 min + 7.5 min over 60-75 min)
    / 2 = 15 min: it keeps 45 min and loses 90 - 45 = 45 min. Its pods stranded on the dead nodes until
    the repair, it runs again at 2 h for the 75 min left: 3 h 15, a tie between 3 h and 3 h 30, goes to
    the earlier step."""
    jobs = parse_trace(LOSS_TRACE.format(acc="v5e", chips=8), "f.csv")
    runner = VirtualRunner(api, twin.plan, jobs, until=4 * H, resolution=30 * MIN)
    lose_where_it_runs(runner, api, "lost", 55 * MIN)
    result = runner.run()
    ev = result.events
    assert stranded_only(result.notes, ev), result.notes
    (lost,) = [e for e in ev if e.type == "evicted" and e.detail == "node-failure"]
    assert lost.t == 1.5 * H and lost.lost == pytest.approx(45 * MIN)
    runs = [e.t for e in ev if e.type == "running" and e.chips == 8]
    assert runs[0] == 0 and runs[-1] == 2 * H
    assert times(ev, "lost", "finished") == [3 * H]
