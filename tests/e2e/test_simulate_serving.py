"""Serving in ``gke-accel simulate`` (trace ``kind: deployment``, simulate/serving.py) on the virtual clock,
on the real twin of staging with one change: its v5e 2x4 slices in their single-host form (ct5lp-hightpu-8t,
8 chips on one VM) instead of the shipped 2-VM form (ct5lp-hightpu-4t), which a Deployment cannot serve
(one pod per VM: ``workload new --kind deployment`` refuses it, and so does the trace check). The same
32 chips in flavor v5e-2x4, the same teams, quotas and queues; a single-host slice runs no multislice,
so every training job here is one slice (8 chips).

Kueue 0.19.2's pod integration admits each replica's pod as a Workload of its own. The expected values
follow from config/staging.yaml (nominal v5e: nlp 16, research 8 with a borrowing limit of 16, serving
8 with ``preempt_when_borrowing``) and Kueue's documented preemption (docs/queues.md "Preemption: the
promise across the cohort"), derived by hand below, never from the runner.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gke_accel.model import ConfigError, load_environment
from gke_accel.simulate.api import Api
from gke_accel.simulate.events import Event
from gke_accel.simulate.metrics import compute
from gke_accel.simulate.objects import check_trace
from gke_accel.simulate.policy import flavor_capacity, nominal_quotas
from gke_accel.simulate.runner import KUEUE
from gke_accel.simulate.trace import parse_trace
from gke_accel.simulate.virtual import VirtualRunner
from gke_accel.twin.environment import EnvironmentRun

MIN, H = 60.0, 3600.0
TOLERANCE = 1 * MIN
STAGING = Path(__file__).resolve().parents[2] / "config" / "staging.yaml"

TRACE = """name,submit,team,kind,accelerator,chips,replicas,duration,checkpoint
n1,0,nlp,job,v5e,8,,2h,30m
n2,0,nlp,job,v5e,8,,2h,30m
r1,0,research,job,v5e,8,,5h,30m
r2,1m,research,job,v5e,8,,3h,30m
web,1h,serving,deployment,v5e,8,2,,
web,3h,serving,deployment,v5e,8,1,,
web,4h,serving,deployment,v5e,8,0,,
"""


@pytest.fixture(scope="module")
def single_host(tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None) -> Iterator[EnvironmentRun]:
    config = tmp_path_factory.mktemp("staging-single-host")
    text, n = re.subn(r"machine_type: ct5lp-hightpu-4t.*", "machine_type: ct5lp-hightpu-8t", STAGING.read_text())
    assert n == 2  # both v5e pools
    (config / "staging.yaml").write_text(text)
    run = EnvironmentRun.launch("staging", tmp_path_factory.mktemp("simulate-serving"), config_dir=config)
    try:
        yield run
    finally:
        run.stop()


@pytest.fixture(scope="module")
def api(single_host: EnvironmentRun) -> Iterator[Api]:
    client = Api(Path(single_host.cluster.kubeconfig))
    yield client
    client.close()


def at(events: list[Event], job: str, kind: str) -> list[float]:
    return [e.t for e in events if e.job == job and e.type == kind]


def shown(events: list[Event]) -> str:
    return "\n".join(
        f"{e.t / MIN:7.1f} min {e.job} {e.type} {e.chips} {e.detail} {e.lost} {e.replicas}" for e in events
    )


def near(found: list[float], expected: list[float], events: list[Event]) -> bool:
    ok = len(found) == len(expected) and all(abs(f - e) <= TOLERANCE for f, e in zip(found, expected, strict=True))
    if not ok:
        print(shown(events))
    return ok


def test_a_deployment_on_the_shipped_two_vm_slices_is_refused_before_the_twin_starts() -> None:
    rows = [j for j in parse_trace(TRACE, "serving.csv") if j.serving]  # (its one-slice jobs would be refused too)
    with pytest.raises(ConfigError) as err:
        check_trace(load_environment(str(STAGING)), rows, "serving.csv")
    assert [i.render() for i in err.value.issues] == [
        "serving.csv: job web: kind: 'deployment': a 2x4 slice has 2 VMs, one pod each; valid: jobset"
    ]


def test_a_deployment_scales_0_2_1_0_beside_a_borrowing_job_and_kueue_reclaims_serving_quota(
    api: Api, single_host: EnvironmentRun
) -> None:
    """- 0: n1, n2 (nlp, 8 each: its nominal 16) and r1 (research, its nominal 8) admitted; 1 min: r2
      (research) borrows serving's idle 8: 32 of 32 chips held.
    - 1 h: web scaled 0 -> 2 (serving, priority inference, 8 chips a replica). Its first replica needs
      serving's own nominal 8, which research borrows: Kueue reclaims it, preempting the borrower, and of
      research's equal-priority jobs the most recently admitted: r2 (ran 59 min, keeps its 30-min
      checkpoint, loses 29 min). The second replica would have to borrow; no queue holds more than its
      nominal now (nlp 16, research 8), so nothing may be preempted for it: it waits.
    - 2 h: n1, n2 finish, 16 chips free: the waiting replica borrows 8 (wait 1 h) and r2 borrows 8 again
      (research's limit allows 16 more); 2 h 30 min of r2's work left: done at 4 h 30.
    - 3 h: scaled to 1 (one pod deleted); 4 h: scaled to 0, the Deployment deleted; r1 finishes at 5 h.
    Serving: asked 2 x 2 h + 1 x 1 h = 5 replica-h, ran 1 + 2 + 1 = 4 (1 short: the second replica's
    hour of waiting), 4 x 8 = 32 chip-h; replica waits 0 and 1 h; no replica preempted."""
    jobs = parse_trace(TRACE, "serving.csv")
    check_trace(single_host.plan, jobs, "serving.csv")
    result = VirtualRunner(api, single_host.plan, jobs, until=6 * H).run()
    ev = result.events
    assert not result.notes, result.notes
    assert near([e.t for e in ev if e.type == "scaled"], [1 * H, 3 * H, 4 * H], ev)
    assert [e.replicas for e in ev if e.type == "scaled"] == [2, 1, 0]
    replicas = sorted({e.job for e in ev if e.deployment == "web" and e.type != "scaled"})
    assert len(replicas) == 2, ev  # two pods: neither preempted, so none replaced
    starts = sorted(e.t for e in ev if e.deployment == "web" and e.type == "running" and e.chips == 8)
    assert near(starts, [1 * H, 2 * H], ev)
    assert near(sorted(t for pod in replicas for t in at(ev, pod, "finished")), [3 * H, 4 * H], ev)
    (evicted,) = [e for e in ev if e.type == "evicted"]
    assert (evicted.job, evicted.detail) == ("r2", "preempted") and abs(evicted.t - 1 * H) <= TOLERANCE
    assert evicted.lost == pytest.approx(29 * MIN, abs=TOLERANCE)
    assert near(at(ev, "r2", "admitted"), [1 * MIN, 2 * H], ev)
    assert near(at(ev, "r2", "finished") + at(ev, "r1", "finished"), [4.5 * H, 5 * H], ev)
    assert not api.items("/apis/apps/v1/namespaces/serving/deployments")  # deleted once scaled to 0

    capacity, resource = flavor_capacity(api.items(f"{KUEUE}/resourceflavors"), api.items("/api/v1/nodes"))
    nominal = nominal_quotas(api.items(f"{KUEUE}/clusterqueues"), {t: t for t in ("nlp", "research", "serving")})
    m = compute(ev, horizon=5 * H, capacity=capacity, resource_of=resource, nominal=nominal)
    serving = m.teams["serving"].summary()
    tol = 8 * TOLERANCE / H * 4  # chip-hours: four replica edges a minute off at most
    assert serving["replica_h_asked"] == pytest.approx(5, abs=3 * TOLERANCE / H)
    assert serving["replica_h_running"] == pytest.approx(4, abs=4 * TOLERANCE / H)
    assert serving["replica_h_short"] == pytest.approx(1, abs=2 * TOLERANCE / H)
    assert serving["serving_chip_h"] == pytest.approx(32, abs=tol)
    assert serving["replica_waits_n"] == 2 and serving["replica_wait_max_h"] == pytest.approx(1, abs=TOLERANCE / H)
    assert serving["replicas_preempted"] == 0 and serving["replicas_never_ran"] == 0
    assert serving["submitted"] == 0 and serving["lost_chip_h"] == 0  # a server is not a job: no lost work
    # chip-hours: n1 + n2 2 x 8 x 2 h, r1 8 x 5 h, r2 8 x (59 min + 2 h 30), serving 32, of 32 x 5 h
    used = 32 + 40 + 8 * (59 + 150) / 60 + 32
    assert m.by_resource["google.com/tpu"] == pytest.approx(used / 160, abs=6 * 8 * TOLERANCE / H / 160)
    # the holders series counts the replicas: at 2.5 h serving holds 16 chips, 8 of them borrowed
    sample = min(m.series, key=lambda s: abs(float(str(s["t_h"])) - 2.5))
    assert sample["held"]["serving"] == {"own": 8, "borrowed": 8}  # type: ignore[index]


RECLAIM = """name,submit,team,kind,accelerator,chips,replicas,duration,priority
n3,0,nlp,job,v5e,8,,4h,
r3,0,research,job,v5e,8,,4h,
batch-api,0,serving,deployment,v5e,8,2,,training
ni,1h,nlp,job,v5e,8,,1h,inference
batch-api,3h,serving,deployment,v5e,8,0,,training
"""


def test_a_borrowing_replica_is_reclaimed_and_its_replacement_queues_again(
    api: Api, single_host: EnvironmentRun
) -> None:
    """A Deployment at priority training (serving may use it) borrows; another team's inference reclaims.
    - 0: n3 (nlp 8 of its 16), r3 (research, its 8), and batch-api's two replicas (serving's own 8 and 8
      borrowed): 32 of 32 chips.
    - 1 h: ni (nlp, inference, 8 chips) is within nlp's nominal, and no chip is free: Kueue reclaims from
      a lower-priority borrower (reclaimWithinCohort LowerPriority; other queues' workloads are its first
      candidates): one batch-api replica, which takes serving back to its nominal. The ReplicaSet
      controller makes a new pod; it would have to borrow, and serving's borrowWithinCohort may preempt
      only below training: it waits.
    - 2 h: ni finishes, 8 chips free: the new replica is admitted (its wait 1 h). 3 h: scaled to 0.
    Serving: asked 2 x 3 h = 6 replica-h, ran 2 + 1 + 2 = 5 (1 short), 40 chip-h; replica waits 0, 0 and
    1 h; one replica preempted, no work lost."""
    jobs = parse_trace(RECLAIM, "reclaim.csv")
    check_trace(single_host.plan, jobs, "reclaim.csv")
    result = VirtualRunner(api, single_host.plan, jobs, until=5 * H).run()
    ev = result.events
    assert not result.notes, result.notes
    evictions = [e for e in ev if e.type == "evicted"]
    assert len(evictions) == 1, shown(ev)
    (evicted,) = evictions
    assert (evicted.deployment, evicted.detail, evicted.lost) == ("batch-api", "preempted", 0.0), shown(ev)
    assert abs(evicted.t - 1 * H) <= TOLERANCE
    assert near(at(ev, "ni", "admitted") + at(ev, "ni", "finished"), [1 * H, 2 * H], ev)
    starts = sorted(e.t for e in ev if e.deployment == "batch-api" and e.type == "running" and e.chips == 8)
    assert near(starts, [0, 0, 2 * H], ev)
    assert len({e.job for e in ev if e.deployment == "batch-api" and e.type == "admitted"}) == 3  # a new pod
    capacity, resource = flavor_capacity(api.items(f"{KUEUE}/resourceflavors"), api.items("/api/v1/nodes"))
    nominal = nominal_quotas(api.items(f"{KUEUE}/clusterqueues"), {t: t for t in ("nlp", "research", "serving")})
    serving = compute(ev, horizon=4 * H, capacity=capacity, resource_of=resource, nominal=nominal).teams["serving"]
    s = serving.summary()
    assert s["replica_h_asked"] == pytest.approx(6, abs=2 * TOLERANCE / H)
    assert s["replica_h_running"] == pytest.approx(5, abs=3 * TOLERANCE / H)
    assert s["replica_h_short"] == pytest.approx(1, abs=2 * TOLERANCE / H)
    assert s["serving_chip_h"] == pytest.approx(40, abs=8 * 3 * TOLERANCE / H)
    assert sorted(serving.replica_waits) == pytest.approx([0, 0, H], abs=TOLERANCE)
    assert (s["replicas_preempted"], s["replicas_never_ran"], s["preempted"], s["lost_chip_h"]) == (1, 0, 0, 0)
