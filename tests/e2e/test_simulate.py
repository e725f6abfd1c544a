"""``gke-accel simulate`` on the real twin of staging (Kueue 0.19.2, JobSet 0.12.0, kwok nodes at every
pool's maximum size): hand-made traces with hand-computed results.

The five-job trace runs on the wall clock (``--clock wall``): 300 simulated seconds per wall second, a
poll every 0.25 s (75 simulated seconds). The control plane's reaction to each step (Kueue admitting,
the JobSet and Job controllers creating pods, the scheduler binding them, kwok marking them Running,
Kueue marking the Workload Finished) took 1-1.5 wall seconds each on this shared 2-core machine, i.e.
5-8 simulated minutes here: TOLERANCE (25 simulated minutes) on a start, and the utilization bound
below, allow for a chain of three; a run's length is kwok's timer (the runner ends a run kwok is late
with two polls after its time). The borrowing test runs on the virtual clock (the default; exact to a
simulated minute; tests/e2e/test_simulate_virtual.py has the rest, a lost slice included).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gke_accel.simulate.api import Api
from gke_accel.simulate.events import Event
from gke_accel.simulate.metrics import compute
from gke_accel.simulate.policy import flavor_capacity, nominal_quotas
from gke_accel.simulate.runner import KUEUE, Runner, apply_policy
from gke_accel.simulate.trace import parse_trace
from gke_accel.simulate.virtual import VirtualRunner
from gke_accel.twin.environment import EnvironmentRun
from gke_accel.twin.lifecycle import SIMULATE

K = 300.0
MIN = 60.0
H = 3600.0
TOLERANCE = 25 * MIN


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[EnvironmentRun]:
    run = EnvironmentRun.launch("staging", tmp_path_factory.mktemp("simulate-staging"), lifecycle=SIMULATE)
    try:
        yield run
    finally:
        run.stop()


@pytest.fixture(scope="module")
def api(twin: EnvironmentRun) -> Iterator[Api]:
    client = Api(Path(twin.cluster.kubeconfig))
    yield client
    client.close()


def first(events: list[Event], job: str, kind: str) -> Event:
    found = [e for e in events if e.job == job and e.type == kind]
    assert found, f"no {kind} event of {job}: " + "; ".join(f"{e.t / MIN:.1f} min {e.job} {e.type}" for e in events)
    return found[0]


def metrics_of(api: Api, twin: EnvironmentRun, events: list[Event], horizon: float) -> Any:
    capacity, resource = flavor_capacity(api.items(f"{KUEUE}/resourceflavors"), api.items("/api/v1/nodes"))
    nominal = nominal_quotas(api.items(f"{KUEUE}/clusterqueues"), {t: t for t in ("nlp", "research", "serving")})
    return compute(events, horizon=horizon, capacity=capacity, resource_of=resource, nominal=nominal)


FIVE = """name,submit,team,accelerator,chips,duration,priority,checkpoint
a,0,nlp,v5e,8,2h,,30m
b,10m,research,v5e,8,1h,,30m
c,20m,serving,v5e,8,1h,inference,
d,30m,research,v5e,8,1h,,30m
e,30m,serving,l4,1,1h,inference,
"""
# 10 simulated minutes (2 wall seconds) apart: JobSets admitted in the same moment race for slices (the
# scheduler may put two leaders on one slice; JobSet deletes one and retries after the 30 s termination
# grace period, 2.5 simulated hours here), which is what a 50% utilization once came out as 32% from.
SUBMIT = {"a": 0.0, "b": 10 * MIN, "c": 20 * MIN, "d": 30 * MIN, "e": 30 * MIN}


def test_five_jobs_give_the_hand_computed_admissions_waits_and_utilization(api: Api, twin: EnvironmentRun) -> None:
    """staging (config/staging.yaml): 4 v5e 2x4 slices (32 chips), 5 L4s on its ladder (2 reserved, 1
    on-demand, 2 Spot); nominal v5e nlp 16, research 8 (may borrow 16 more), serving 8; L4 nlp 1 (on the
    reservation), serving 4 (1 on the reservation, 1 on-demand, 2 Spot). Each team's cpu/memory quota is
    derived from the chips it may hold (model/teams/compute.py), so chips bind, not cpu (a fixed 64 cpu
    once let each team run one slice, ``workload new`` giving each pod its 112-vCPU VM).
    a, b, c, d start when submitted (0, 10, 20, 30 min): 32 of 32 chips, d (research's second slice)
    borrowing 8 of nlp's idle nominal; e (1 L4, submitted at 30 min, serving's nominal on the ladder's first
    rung, the reservation) starts at 30 min.
    Every job ends by 2 h, within the 2.5 h:
    TPU chip-hours = a 8x2 + b 8x1 + c 8x1 + d 8x1 = 40 of 32x2.5 = 80 -> 50%;  GPU 1x1 of 5x2.5 -> 8%;
    research holds 16 chips (8 over its nominal) while b and d both run, 30 min to 1 h 10: 8 x 40 min =
    5.33 chip-h borrowed, which nlp (the only team below its nominal then) lends."""
    jobs = parse_trace(FIVE, "five.csv")
    result = Runner(api, twin.plan, jobs, compression=K, until=2.5 * H).run()
    ev = result.events
    admitted = {j: first(ev, j, "admitted").t for j in "abcde"}
    for j in "abcde":
        assert 0 <= admitted[j] - SUBMIT[j] < TOLERANCE, (j, admitted[j], ev)
    assert {first(ev, j, "admitted").flavor for j in "abcd"} == {"v5e-2x4"} and first(
        ev, "e", "admitted"
    ).flavor == "l4-reservation-r-l4-serve"
    assert not [e for e in ev if e.type == "evicted"]
    m = metrics_of(api, twin, ev, 2.5 * H)
    # each start is late by the control plane's reaction (< TOLERANCE), never early: 50% is the ceiling
    assert 0.50 - 4 * 8 * TOLERANCE / (32 * 2.5 * H) <= m.by_resource["google.com/tpu"] <= 0.50 + 0.01
    assert 0.08 - TOLERANCE / (5 * 2.5 * H) <= m.by_resource["nvidia.com/gpu"] <= 0.08 + 0.01
    research = m.teams["research"].summary()
    assert research["submitted"] == 2 and research["admitted"] == 2 and research["finished"] == 2
    assert research["wait_max_h"] < TOLERANCE / H
    # b and d each start up to a reaction late, so the overlap is 40 min give or take TOLERANCE
    assert abs(research["borrowed_chip_h"] - 8 * 40 / 60) <= 8 * TOLERANCE / H
    assert abs(m.teams["nlp"].summary()["lent_chip_h"] - research["borrowed_chip_h"]) < 1e-6
    assert m.teams["nlp"].summary()["borrowed_chip_h"] == 0


BORROW = """name,submit,team,accelerator,chips,duration
{p}1,0,nlp,l4,1,1h
{p}2,0,nlp,l4,1,1h
"""


@pytest.mark.parametrize("policy", ["cohort", "static"])
def test_static_really_blocks_borrowing(api: Api, twin: EnvironmentRun, policy: str) -> None:
    """nlp's nominal L4 quota is 1, on the reservation rung (serving holds the other 4, idle here: 1 on the
    reservation, 1 on-demand, 2 Spot). Two 1-GPU jobs at once: with the cohort the second borrows serving's
    reserved GPU and both run from the start; with ``static`` (borrowingLimit 0 on every L4 flavor) the
    second waits until the first is done, 1 h."""
    apply_policy(api, policy)
    try:
        cqs = {cq["metadata"]["name"]: cq for cq in api.items(f"{KUEUE}/clusterqueues")}
        limits = [r.get("borrowingLimit") for g in cqs["nlp"]["spec"]["resourceGroups"] for f in g["flavors"]
                  for r in f["resources"] if r["name"] == "nvidia.com/gpu"]  # fmt: skip
        assert limits == ([0, 0, 0] if policy == "static" else [None, None, None])  # the ladder's 3 L4 flavors
        p = "s" if policy == "static" else "c"
        jobs = parse_trace(BORROW.format(p=p), "borrow.csv")
        result = VirtualRunner(api, twin.plan, jobs, until=2.5 * H).run()  # exact to a simulated minute
        waits = sorted(first(result.events, j.name, "admitted").t for j in jobs)
        nlp = metrics_of(api, twin, result.events, 2.5 * H).teams["nlp"].summary()
        if policy == "cohort":
            assert waits == pytest.approx([0, 0], abs=MIN) and nlp["borrowed_chip_h"] == pytest.approx(1, abs=MIN / H)
        else:
            assert waits == pytest.approx([0, H], abs=MIN) and nlp["borrowed_chip_h"] == 0
    finally:
        for cq in api.items(f"{KUEUE}/clusterqueues"):  # back to the stack's own borrowing settings
            for g in cq["spec"]["resourceGroups"]:
                for f in g["flavors"]:
                    for r in f["resources"]:
                        if r["name"] == "nvidia.com/gpu" and policy == "static":
                            r.pop("borrowingLimit", None)
            api.request("PUT", f"{KUEUE}/clusterqueues/{cq['metadata']['name']}", cq)
