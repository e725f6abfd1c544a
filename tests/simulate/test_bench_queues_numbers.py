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
    # training: nlp 16 + research 8 = 24 chips 8-20 h; inference: serving 8 at 20-21 h, 24 at 21-22 h
    log = [E(8, "n", "nlp", "running", chips=16), E(8, "r", "research", "running", chips=8),
           E(20, "n", "nlp", "finished"), E(20, "r", "research", "finished"),
           E(20, "s1", "serving", "running", chips=8), E(21, "s1", "serving", "finished"),
           E(21, "s2", "serving", "running", chips=24), E(22, "s2", "serving", "finished")]  # fmt: skip
    d = bench.day_night(log)
    # two pools: 24 + 24 = 48 chips against 32 shared: 1 - 32/48 = 33.3% fewer; used 24 x 12 + 8 + 24 = 320
    assert (d["peak_training_chips"], d["peak_inference_chips"], d["separate_pools_chips"]) == (24, 24, 48)
    assert (d["saving_vs_separate"], d["chip_hours_used"]) == (0.333, 320.0)


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
