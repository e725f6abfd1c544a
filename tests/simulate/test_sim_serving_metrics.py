"""Serving numbers of ``metrics.compute`` (a trace's Deployments, simulate/serving.py) on a hand-written
event log: chip-hours from the replicas' run intervals, replica-hours asked for and short, a wait per
replica, preemptions; jobs' numbers untouched; every expected value worked out by hand below."""

from __future__ import annotations

import pytest

from gke_accel.simulate import report
from gke_accel.simulate.events import Event
from gke_accel.simulate.metrics import compute

H = 3600.0


def job(t_h: float, name: str, kind: str, **kw: object) -> Event:
    return Event(t_h * H, name, "nlp", kind, **kw)  # type: ignore[arg-type]


def rep(t_h: float, pod: str, kind: str, chips: int = 8, **kw: object) -> Event:
    return Event(t_h * H, pod, "serving", kind, flavor="f", chips=chips, deployment="web", **kw)  # type: ignore[arg-type]


def scaled(t_h: float, n: int) -> Event:
    return Event(t_h * H, "web", "serving", "scaled", chips=8, deployment="web", replicas=n)


# web, 8 chips a replica: 2 at 0 h (p1 runs at 0, p2 at 1 h); p1 preempted at 2 h, its replacement p3
# runs at 3 h; 4 at 4 h (p4 runs at 5 h); 1 at 6 h (p3, p4 go); 2 at 7 h, the new one never runs by 8 h.
# Beside it nlp's job t holds 16 chips 0-8 h.
LOG = [
    job(0, "t", "submitted", chips=16), job(0, "t", "admitted", flavor="f", chips=16),
    job(0, "t", "running", flavor="f", chips=16),
    scaled(0, 2), rep(0, "p1", "admitted"), rep(0, "p1", "running"),
    rep(1, "p2", "admitted"), rep(1, "p2", "running"),
    rep(2, "p1", "running", chips=0), rep(2, "p1", "evicted", detail="preempted"),
    rep(3, "p3", "admitted"), rep(3, "p3", "running"),
    scaled(4, 4), rep(5, "p4", "admitted"), rep(5, "p4", "running"),
    scaled(6, 1), rep(6, "p3", "running", chips=0), rep(6, "p3", "finished", detail="scaled-down"),
    rep(6, "p4", "running", chips=0), rep(6, "p4", "finished", detail="scaled-down"),
    scaled(7, 2),
]  # fmt: skip


def metrics() -> dict[str, object]:
    m = compute(LOG, horizon=8 * H, capacity={"f": 32}, resource_of={"f": "google.com/tpu"},
                nominal={"nlp": {"f": 16}, "serving": {"f": 8}}, samples=16)  # fmt: skip
    return {"m": m, "serving": m.teams["serving"].summary(), "nlp": m.teams["nlp"].summary()}


def test_replica_hours_asked_running_and_short() -> None:
    s = metrics()["serving"]
    # asked: 2 x 4 h + 4 x 2 h + 1 x 1 h + 2 x 1 h = 19; running by hour 1,2,1,2,2,3,1,1 = 13; short 6
    assert (s["replica_h_asked"], s["replica_h_running"], s["replica_h_short"]) == pytest.approx((19, 13, 6))  # type: ignore[index]
    assert s["serving_chip_h"] == pytest.approx(13 * 8)  # type: ignore[index]


def test_a_wait_per_replica_from_its_scale_up_or_preemption() -> None:
    s = metrics()["serving"]
    # p1 0 (0 -> 0 h), p2 1 h (0 -> 1 h), p3 1 h (preempted 2 h -> 3 h), p4 1 h (4 -> 5 h); the second
    # replica asked at 4 h is no longer asked for at 6 h (no wait); the one asked at 7 h waits to 8 h
    assert s["replica_waits_n"] == 5 and s["replicas_never_ran"] == 1  # type: ignore[index]
    assert (s["replica_wait_p50_h"], s["replica_wait_max_h"]) == pytest.approx((1, 1))  # type: ignore[index]
    assert s["replicas_preempted"] == 1  # type: ignore[index]


def test_replicas_count_in_utilization_and_holders_not_in_jobs_numbers() -> None:
    got = metrics()
    m, s, nlp = got["m"], got["serving"], got["nlp"]
    # (104 serving + 128 nlp) chip-h of 32 x 8 h
    assert m.utilization["f"] == pytest.approx((104 + 128) / 256)  # type: ignore[attr-defined]
    # the jobs' columns: serving submitted no job, lost no work; nlp's goodput is its own
    assert (s["submitted"], s["preempted"], s["lost_chip_h"], s["waits_n"]) == (0, 0, 0, 0)  # type: ignore[index]
    assert (nlp["ran_chip_h"], nlp["goodput"]) == pytest.approx((128, 1.0))  # type: ignore[index]
    # admitted replicas above serving's nominal 8: 8 (1-2 h) + 8 x 2 (3-5 h) + 16 (5-6 h) = 40 chip-h
    assert s["borrowed_chip_h"] == pytest.approx(40)  # type: ignore[index]
    # the holders series at 5.5 h: three replicas (24 chips), 8 own and 16 borrowed
    (sample,) = [x for x in m.series if x["t_h"] == 5.5]  # type: ignore[attr-defined]
    assert sample["held"]["serving"] == {"own": 8, "borrowed": 16}
    assert (2.0, "serving", "preempted") in m.marks  # type: ignore[attr-defined]


def test_the_text_report_shows_serving_beside_jobs_and_only_with_deployments() -> None:
    m = metrics()["m"]
    text = report.text(m, {"environment": "t"})  # type: ignore[arg-type]
    line = next(x for x in text.splitlines() if x.startswith("serving") and "19.0" in x)
    assert line.split() == [
        "serving", "19.0", "13.0", "6.0", "104.0", "5", "1.00", "1.00", "1", "1"]  # fmt: skip
    jobs_only = compute([e for e in LOG if not e.deployment], horizon=8 * H, capacity={"f": 32},
                        resource_of={"f": "google.com/tpu"}, nominal={"nlp": {"f": 16}})  # fmt: skip
    assert "replica" not in report.text(jobs_only, {"environment": "t"})


def test_goodput_counts_a_serving_team_s_replicas_like_its_jobs() -> None:
    d = metrics()
    # serving has no job: its goodput is its replicas' chip-hours running / asked for, 13 x 8 / (19 x 8)
    assert d["serving"]["goodput"] == pytest.approx(13 / 19)  # type: ignore[index]
    assert d["serving"]["serving_asked_chip_h"] == pytest.approx(19 * 8)  # type: ignore[index]
    # nlp has jobs only: 16 chips asked and running 0-8 h
    assert d["nlp"]["goodput"] == pytest.approx(1.0)  # type: ignore[index]
