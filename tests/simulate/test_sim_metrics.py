"""Metrics from a hand-made event log; every expected number is worked out by hand in the comments."""

from __future__ import annotations

import pytest

from gke_accel.simulate.events import Event, dump, load
from gke_accel.simulate.metrics import compute, percentile

H = 3600.0


def E(t_h: float, job: str, team: str, kind: str, **kw: object) -> Event:
    return Event(t_h * H, job, team, kind, **kw)  # type: ignore[arg-type]


# Flavor f: 16 TPU chips, x and y 8 nominal each. Flavor g: 4 GPUs, x 1 nominal, y 0.
# a (x): admitted at 0, runs 8 chips 0-2 h.   b (x): admitted at 0 (x borrows 8), runs 0-1 h, preempted at
# 1 h losing 15 min, admitted again at 2 h, runs 2-3 h.   c (y): submitted and admitted at 1 h, runs 1-3 h.
# d (y): submitted at 1 h, never admitted.   e (y): 1 GPU of g 0-2 h (y borrows x's idle GPU).
LOG = [
    E(0, "a", "x", "submitted"), E(0, "a", "x", "admitted", flavor="f", chips=8),
    E(0, "b", "x", "submitted"), E(0, "b", "x", "admitted", flavor="f", chips=8),
    E(0, "e", "y", "submitted"), E(0, "e", "y", "admitted", flavor="g", chips=1),
    E(0, "a", "x", "running", flavor="f", chips=8), E(0, "b", "x", "running", flavor="f", chips=8),
    E(0, "e", "y", "running", flavor="g", chips=1),
    E(1, "b", "x", "evicted", flavor="f", chips=8, detail="preempted", lost=900.0),
    E(1, "c", "y", "submitted"), E(1, "d", "y", "submitted"), E(1, "c", "y", "admitted", flavor="f", chips=8),
    E(1, "c", "y", "running", flavor="f", chips=8),
    E(2, "a", "x", "running", chips=0), E(2, "a", "x", "finished"),
    E(2, "e", "y", "running", chips=0), E(2, "e", "y", "finished"),
    E(2, "b", "x", "admitted", flavor="f", chips=8), E(2, "b", "x", "running", flavor="f", chips=8),
    E(3, "b", "x", "finished"), E(3, "c", "y", "finished"),
]  # fmt: skip


@pytest.fixture
def m():  # type: ignore[no-untyped-def]
    return compute(LOG, horizon=4 * H, capacity={"f": 16, "g": 4},
                   resource_of={"f": "google.com/tpu", "g": "nvidia.com/gpu"},
                   nominal={"x": {"f": 8, "g": 1}, "y": {"f": 8, "g": 0}}, samples=4)  # fmt: skip


def test_utilization_is_the_share_of_chips_held_by_running_pods(m) -> None:  # type: ignore[no-untyped-def]
    # f: a 8x2 + b 8x1 + b 8x1 + c 8x2 = 48 chip-h of 16 chips x 4 h = 64 -> 0.75;  g: 1x2 of 4x4 -> 0.125
    assert m.utilization == {"f": pytest.approx(0.75), "g": pytest.approx(0.125)}
    assert m.by_resource == {"google.com/tpu": pytest.approx(0.75), "nvidia.com/gpu": pytest.approx(0.125)}


def test_per_team_counts_and_waits(m) -> None:  # type: ignore[no-untyped-def]
    x, y = m.teams["x"].summary(), m.teams["y"].summary()
    assert (x["submitted"], x["admitted"], x["admissions"], x["preempted"], x["finished"]) == (2, 2, 3, 1, 2)
    assert (y["submitted"], y["admitted"], y["admissions"], y["preempted"], y["finished"]) == (3, 2, 2, 0, 2)
    # x waits: a 0; b 0 to its first admission, then requeued by its preemption at 1 h until 2 h: 1 h in all.
    # Nearest rank of [0, 1]: p50 = 1st = 0, p95 = 2nd = 1 (the worst of two); first admissions alone: 0, 0
    assert (x["wait_p50_h"], x["wait_p95_h"], x["wait_max_h"]) == (0, 1, 1)
    assert (x["first_wait_p50_h"], x["first_wait_p95_h"], x["waits_n"], x["wait_p95_is_max"]) == (0, 0, 2, True)
    # y waits: e 0, c 0, d never admitted: counted until the end of the log (4 h) from 1 h = 3 h.
    # nearest rank of [0, 0, 3]: p50 = 2nd = 0, p95 = 3rd = 3
    assert (y["wait_p50_h"], y["wait_p95_h"], y["wait_max_h"], y["never_admitted"]) == (0, 3, 3, 1)


def test_borrowed_lent_and_lost_chip_hours(m) -> None:  # type: ignore[no-untyped-def]
    x, y = m.teams["x"].summary(), m.teams["y"].summary()
    # 0-1 h x holds 16 of f (8 above nominal) while y holds none: x borrows 8 chip-h, y lends them.
    # 0-2 h y holds 1 GPU of g with nominal 0 while x (nominal 1) holds none: y borrows 2, x lends 2.
    assert (x["borrowed_chip_h"], x["lent_chip_h"]) == (pytest.approx(8), pytest.approx(2))
    assert (y["borrowed_chip_h"], y["lent_chip_h"]) == (pytest.approx(2), pytest.approx(8))
    # b's eviction lost 15 min on 8 chips = 2 chip-h
    assert (x["lost_chip_h"], y["lost_chip_h"]) == (pytest.approx(2), 0)


def test_the_series_samples_utilization_and_queue_depth(m) -> None:  # type: ignore[no-untyped-def]
    at = {s["t_h"]: s for s in m.series}
    assert sorted(at) == [0, 1, 2, 3]
    assert at[1]["util"] == {"f": 1.0, "g": 0.25} and at[1]["pending"] == {"x": 1, "y": 1}  # b requeued, d waits
    assert at[3]["util"] == {"f": 0.0, "g": 0.0} and at[3]["pending"] == {"x": 0, "y": 1}


def test_a_warm_up_is_left_out_of_every_number_but_the_series() -> None:
    m = compute(LOG, horizon=4 * H, capacity={"f": 16, "g": 4}, start=1 * H,
                resource_of={"f": "google.com/tpu", "g": "nvidia.com/gpu"},
                nominal={"x": {"f": 8, "g": 1}, "y": {"f": 8, "g": 0}}, samples=4)  # fmt: skip
    # window 1-4 h. f: a 8x1 (1-2 h) + b 8x1 (2-3 h) + c 8x2 = 32 chip-h of 16 x 3 = 48; g: e 1x1 of 4 x 3 = 12
    assert m.utilization == {"f": pytest.approx(32 / 48), "g": pytest.approx(1 / 12)}
    x, y = m.teams["x"].summary(), m.teams["y"].summary()
    # x's jobs (a, b) came in the warm-up: none counted; b's eviction at 1 h is in the window (2 chip-h lost)
    assert (x["submitted"], x["admitted"], x["admissions"], x["finished"], x["preempted"]) == (0, 0, 0, 0, 1)
    assert x["lost_chip_h"] == pytest.approx(2)
    # y: c (admitted at once) and d (never: 3 h) of the window; e of the warm-up left out. Ranks of [0, 3]
    assert (y["submitted"], y["admitted"], y["admissions"], y["finished"], y["never_admitted"]) == (2, 1, 1, 1, 1)
    assert (y["wait_p50_h"], y["wait_p95_h"]) == (0, 3)
    # only g is over nominal in the window: e's GPU 1-2 h, x's idle one
    assert (x["borrowed_chip_h"], x["lent_chip_h"], y["borrowed_chip_h"], y["lent_chip_h"]) == (
        0, pytest.approx(1), pytest.approx(1), 0)  # fmt: skip
    assert [s["t_h"] for s in m.series] == [0, 1, 2, 3] and m.as_dict()["measured_from_h"] == 1


def test_nearest_rank_percentiles() -> None:
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (10, 19, 20)
    assert percentile([], 95) == 0


def test_the_event_log_round_trips_and_refuses_unknown_types() -> None:
    assert load(dump(LOG)) == LOG
    with pytest.raises(ValueError, match="event type 'started' is not one of"):
        Event(0, "a", "x", "started")
