"""Goodput per team, waits that include re-queueing, the p95 of a few jobs named for what it is, and the
chips of a run logged before its admission: hand-made event logs, every number worked out in the comments."""

from __future__ import annotations

import pytest

from gke_accel.simulate.events import Event
from gke_accel.simulate.metrics import compute, p95_is_max
from gke_accel.simulate.report import p95_cell, text

H = 3600.0
CAP, RES, NOM = {"f": 16}, {"f": "google.com/tpu"}, {"x": {"f": 8}, "y": {"f": 8}}


def E(t_h: float, job: str, team: str, kind: str, **kw: object) -> Event:
    return Event(t_h * H, job, team, kind, **kw)  # type: ignore[arg-type]


# a (x, 8 chips): submitted 0, admitted and running 1-3 h, preempted at 3 h, admitted again at 5 h, runs
# to 6 h.  b (y, 8 chips): submitted 0, runs 0-2 h, finished.  c (y, 8 chips): submitted 2 h, never admitted.
LOG = [
    E(0, "a", "x", "submitted", chips=8), E(0, "b", "y", "submitted", chips=8),
    E(0, "b", "y", "admitted", flavor="f", chips=8), E(0, "b", "y", "running", flavor="f", chips=8),
    E(1, "a", "x", "admitted", flavor="f", chips=8), E(1, "a", "x", "running", flavor="f", chips=8),
    E(2, "b", "y", "running", chips=0), E(2, "b", "y", "finished"), E(2, "c", "y", "submitted", chips=8),
    E(3, "a", "x", "evicted", flavor="f", chips=8, detail="preempted", lost=0.0),
    E(5, "a", "x", "admitted", flavor="f", chips=8), E(5, "a", "x", "running", flavor="f", chips=8),
    E(6, "a", "x", "running", chips=0), E(6, "a", "x", "finished"),
]  # fmt: skip


def test_goodput_is_chip_hours_run_over_chip_hours_asked_for() -> None:
    m = compute(LOG, horizon=8 * H, capacity=CAP, resource_of=RES, nominal=NOM, samples=8)
    x, y = m.teams["x"].summary(), m.teams["y"].summary()
    # x: a asks 8 chips from 0 to its finish at 6 h = 48 chip-h; runs 1-3 and 5-6 h = 24 chip-h: 50%
    assert (x["asked_chip_h"], x["ran_chip_h"], x["goodput"]) == (pytest.approx(48), pytest.approx(24), 0.5)
    # y: b asks and runs 0-2 h = 16; c asks 2-8 h (the window's end) = 48, runs 0: 16 / 64 = 25%
    assert (y["asked_chip_h"], y["ran_chip_h"], y["goodput"]) == (pytest.approx(64), pytest.approx(16), 0.25)


def test_a_wait_includes_the_time_requeued_after_a_preemption() -> None:
    m = compute(LOG, horizon=8 * H, capacity=CAP, resource_of=RES, nominal=NOM, samples=8)
    x, y = m.teams["x"].summary(), m.teams["y"].summary()
    # a waited 0-1 h for its first admission and 3-5 h requeued: 3 h; its first wait alone is 1 h
    assert (x["wait_max_h"], x["first_wait_p95_h"]) == (3, 1)
    # y: b 0 h; c, submitted at 2 h, still waits at the end (the horizon, 8 h): 6 h
    assert (y["wait_p50_h"], y["wait_max_h"], y["never_admitted"]) == (0, 6, 1)


def test_the_p95_of_fewer_than_twenty_jobs_is_called_the_worst() -> None:
    # nearest rank: ceil(0.95 n) = n for n <= 19 (0.95 x 19 = 18.05 -> 19), not for n = 20 (19)
    assert [p95_is_max(n) for n in (0, 1, 2, 19, 20, 40)] == [False, True, True, True, False, False]
    m = compute(LOG, horizon=8 * H, capacity=CAP, resource_of=RES, nominal=NOM, samples=8)
    assert p95_cell(m.teams["y"].summary()) == "6.00 (worst of 2)"
    assert p95_cell({"wait_p95_h": 2.5, "waits_n": 20, "wait_p95_is_max": False}) == "2.50"
    assert "goodput" in text(m, {"policy": "cohort"}) and "50.0%" in text(m, {"policy": "cohort"})


def test_chips_seen_running_before_the_admission_event_count_under_its_flavor() -> None:
    # An older runner logged a pod Running (flavor "") before the admission it listed first: the chips
    # count from the admission on (here at the same time), under the admitted flavor: 8 x 2 h of 16 x 4 h
    log = [E(0, "g", "x", "submitted", chips=8), E(0, "g", "x", "running", chips=8),
           E(0, "g", "x", "admitted", flavor="f", chips=8), E(2, "g", "x", "running", chips=0),
           E(2, "g", "x", "finished")]  # fmt: skip
    m = compute(log, horizon=4 * H, capacity=CAP, resource_of=RES, nominal=NOM, samples=4)
    assert m.utilization == {"f": pytest.approx(0.25)}
