"""``size`` recommends multislice when the largest slice of a TPU generation is too small, and counts
the multi-host slices of one shape over every pool of an environment (staging: v5e-slice's one plus
v5e-shared's three 2x4 slices). Worked by hand:

- 405B train (bf16, AdamW, context 4096, batch 8): 6,845.5 GiB to provision (the CLI's table: 16 B per
  parameter + activations, / 0.9). v5e's largest slice is 16x16 = 256 chips x 16 GiB = 4,096 GiB:
  ceil(6,845.5 / 4,096) = 2 slices, 512 chips, 512 x $1.20 = $614.40/h. v6e 16x16 holds 8,192 GiB: one slice.
- 20B train: L = round((20e9 / 196608)^(1/3)) = round(46.7) = 47, h = 6016; activations
  2 x 4096 x 8 x 6016 x 47 = 18,530,435,072 B; total 320e9 + 18.53e9 = 338.53e9 B; / 0.9 = 376.1e9 B
  = 350.3 GiB; a 2x4 slice is 8 x 16 = 128 GiB: ceil(2.74) = 3 slices of the 4 staging has.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_accel.model.environment.config_files import load_environments
from gke_accel.workloads.size.fit import catalog_options, environment_fits
from gke_accel.workloads.size.memory import GIB, estimate_memory

CONFIG = Path(__file__).resolve().parents[2] / "config"


def test_a_model_too_large_for_one_v5e_slice_gets_two_slices() -> None:
    est = estimate_memory(405e9, "train", context=4096, batch=8)
    assert est.needed_bytes / GIB == pytest.approx(6845.5, abs=0.1)
    opts = {o.accelerator: o for o in catalog_options(est)}
    v5e = opts["v5e"]
    assert (v5e.slices, v5e.chips, v5e.memory_gib) == (2, 512, 8192)
    assert v5e.shape == "2 x 16x16 (v5litepod-256) multislice"
    assert v5e.hourly_on_demand == pytest.approx(614.40)
    assert (opts["v6e"].slices, opts["v6e"].shape) == (1, "16x16 (v6e-256)")


def test_staging_counts_slices_over_both_configured_pools() -> None:
    [staging] = load_environments(CONFIG, ["staging"])
    fits = {f.pool: f for f in environment_fits(estimate_memory(20e9, "train", context=4096, batch=8), staging)}
    for pool in ("v5e-slice", "v5e-shared"):
        assert (fits[pool].units_needed, fits[pool].units_max, fits[pool].fits) == (3, 4, True)
        assert fits[pool].verdict == "fits in 3 slices (multislice: --slices 3)"
    big = {f.pool: f for f in environment_fits(estimate_memory(405e9, "train", context=4096, batch=8), staging)}
    assert big["v5e-slice"].verdict == "too small: needs 54 slices, 4 of this shape exist"


def test_single_host_slices_do_not_combine() -> None:
    """GKE: multislice runs on multi-host slice pools only (dev's v5e pool is single-host 2x2)."""
    [dev] = load_environments(CONFIG, ["dev"])
    fits = [
        f
        for f in environment_fits(estimate_memory(20e9, "train", context=4096, batch=8), dev)
        if f.accelerator == "v5e"
    ]
    assert fits and all(f.units_max == 1 and not f.fits for f in fits)
