"""``--generate``: deterministic per seed, the offered load asked for, bursty training, inference at night."""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path

import pytest

from gke_accel.model import load_environment
from gke_accel.simulate.generate import Settings, capacity_of, generate, offered_load
from gke_accel.simulate.objects import check_trace

STAGING = load_environment(str(Path(__file__).resolve().parents[2] / "config" / "staging.yaml"))
WEEK = 7 * 86400


def test_the_same_seed_gives_the_same_trace_and_another_seed_another() -> None:
    assert generate(STAGING, Settings(seed=3)) == generate(STAGING, Settings(seed=3))
    assert generate(STAGING, Settings(seed=3)) != generate(STAGING, Settings(seed=4))


def test_a_week_offers_the_asked_load_of_staging_with_over_200_valid_jobs() -> None:
    jobs = generate(STAGING, Settings(seed=1, days=7, load=0.9))
    # staging: 4 slices of 2x4 v5e = 32 chips, 5 L4 nodes of 1 GPU on its L4 ladder (l4-reserved 2,
    # l4-serve 1, l4-spot 2; config/staging.yaml)
    assert capacity_of(STAGING) == {"v5e": 32, "l4": 5}
    load = offered_load(jobs, {"v5e": 32, "l4": 5}, WEEK)
    assert load == {"v5e": pytest.approx(0.9, abs=0.01), "l4": pytest.approx(0.9, abs=0.01)}
    assert len(jobs) >= 200 and max(j.submit for j in jobs) < WEEK
    check_trace(STAGING, jobs, "generated")  # workload new can make every job


def test_inference_peaks_at_night_and_training_comes_in_bursts() -> None:
    jobs = generate(STAGING, Settings(seed=1))
    hour = [(j.submit / 3600) % 24 for j in jobs if j.priority == "inference"]
    night = sum(1 for h in hour if h >= 22 or h < 6)
    day = sum(1 for h in hour if 10 <= h < 18)
    assert night > 2 * day  # 1 + cos around 02:00: the 8 night hours hold ~4x the 8 afternoon ones
    train = sorted(j.submit for j in jobs if j.team == "nlp" and j.accelerator == "v5e")
    gaps = [b - a for a, b in itertools.pairwise(train)]
    assert statistics.pstdev(gaps) / statistics.mean(gaps) > 1.2  # Poisson arrivals would give ~1
