"""The benchmark's scenario numbers from hand-made event logs (benchmarks/queues/bench_queues.py):
day/night's peaks against one pool, the inference peak's timeline; every number worked out by hand."""

from __future__ import annotations

from gke_accel.simulate.events import Event
from helpers import load_script

bench = load_script("benchmarks/queues/bench_queues.py", "bench_queues")
H = 3600.0


def E(t_h: float, job: str, team: str, kind: str, **kw: object) -> Event:
    return Event(t_h * H, job, team, kind, **kw)  # type: ignore[arg-type]


def test_day_night_compares_one_pool_with_two_sized_for_each_peak() -> None:
    # training: nlp 8 + 8 and research 8 = 24 chips 8-20 h; serving's Deployment (8 chips a replica)
    # scaled 1 at 20 h, 2 at 21 h, 3 at 22 h, 1 at 23 h, 0 at 24 h: replicas p1 20-24 h, p2 21-23 h, p3 22-23 h
    def rep(t: float, pod: str, kind: str, chips: int = 0, replicas: int = 0) -> Event:
        return E(t, pod, "serving", kind, chips=chips, deployment="web", replicas=replicas)

    log = [E(8, "n1", "nlp", "running", chips=8), E(8, "n2", "nlp", "running", chips=8),
           E(8, "r", "research", "running", chips=8), E(20, "n1", "nlp", "finished"),
           E(20, "n2", "nlp", "finished"), E(20, "r", "research", "finished"),
           rep(20, "web", "scaled", 8, 1), rep(20, "p1", "admitted", 8), rep(20, "p1", "running", 8),
           rep(21, "web", "scaled", 8, 2), rep(21, "p2", "admitted", 8), rep(21, "p2", "running", 8),
           rep(22, "web", "scaled", 8, 3), rep(22, "p3", "admitted", 8), rep(22, "p3", "running", 8),
           rep(23, "web", "scaled", 8, 1), rep(23, "p2", "running"), rep(23, "p2", "finished", 8),
           rep(23, "p3", "running"), rep(23, "p3", "finished", 8),
           rep(24, "web", "scaled", 8, 0), rep(24, "p1", "running"), rep(24, "p1", "finished", 8)]  # fmt: skip
    d = bench.day_night(log, window_h=72)
    # two pools: 24 + 24 = 48 chips against 32 shared: 1 - 32/48 = 33.3% fewer
    assert (d["peak_training_chips"], d["peak_serving_chips"], d["separate_pools_chips"]) == (24, 24, 48)
    assert (d["peak_both_chips"], d["shared_pool_chips"], d["saving_vs_separate"]) == (24, 32, 0.333)
    # used: 24 x 12 h + 8 x (4 + 2 + 1) h = 344 chip-h; of 32 chips x 72 h = 2304: 14.9%
    assert (d["chip_hours_used"], d["used_share_of_shared_pool"]) == (344.0, 0.149)
    # catalog/prices.yaml: v5e on demand 1.20 USD a chip-hour, 730 h a month: 876 USD a chip-month
    assert d["v5e_on_demand_usd_per_chip_hour"] == 1.20
    assert (d["monthly_usd_shared"], d["monthly_usd_separate"]) == (32 * 876, 48 * 876)
    assert d["sources_saving"] == 0.37
    # cut at 22 h 30: p1 and p2 still run (and p3 from 22 h): 288 + 8 x (2.5 + 1.5 + 0.5) = 324 chip-h
    cut = bench.day_night(log, window_h=22.5)
    assert (cut["chip_hours_used"], cut["peak_serving_chips"]) == (324.0, 24)


def test_the_inference_peak_says_when_inference_ran_what_training_lost_and_when_it_resumed() -> None:
    log = [E(0, "t", "research", "submitted", chips=16), E(0, "t", "research", "running", chips=16),
           E(5 + 1 / 3, "i", "serving", "submitted", chips=8),
           E(5 + 1 / 3, "t", "research", "evicted", chips=16, detail="preempted", lost=1200.0),
           E(5 + 1 / 3, "i", "serving", "running", chips=8), E(8 + 1 / 3, "i", "serving", "finished"),
           E(8 + 1 / 3, "t", "research", "running", chips=16)]  # fmt: skip
    d = bench.inference_peak(log)
    assert d["peak_at_h"] == 5 + 1 / 3 and d["inference_running_after_s"] == 0
    assert d["training_evicted"] == [{"job": "t", "team": "research", "lost_min": 20.0,
                                      "resumed_after_peak_start_h": 3.0}]  # fmt: skip
