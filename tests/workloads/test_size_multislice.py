"""``size`` recommends multislice when the largest slice of a TPU generation is too small, and counts
the multi-host slices of one shape over every pool of an environment (staging: v5e-slice's one plus
v5e-shared's three 2x4 slices). Worked by hand:

- 405B train (bf16, AdamW, context 4096, batch 8): 6,161.0 GiB of state and activations (the CLI's table:
  16 B per parameter + activations), / 0.75 (training's usable share, JAX's default preallocation,
  catalog/sizing.yaml) = 8,214.6 GiB to provision. v5e's largest slice is 16x16 = 256 chips x 16 GiB =
  4,096 GiB: ceil(8,214.6 / 4,096) = 3 slices, 768 chips, 768 x $1.20 = $921.60/h. v6e 16x16 holds
  8,192 GiB, just short: 2 slices. (With the former / 0.9 it was 6,845.5 GiB: 2 v5e slices, 1 v6e.)
- 20B train: L = round((20e9 / 196608)^(1/3)) = round(46.7) = 47, h = 6016; activations
  2 x 4096 x 8 x 6016 x 47 = 18,530,435,072 B; total 320e9 + 18.53e9 = 338.53e9 B; / 0.75 = 451.4e9 B
  = 420.4 GiB; a 2x4 slice is 8 x 16 = 128 GiB: ceil(3.28) = 4 slices of the 4 staging has.
  405B on 2x4 slices: ceil(8,214.6 / 128) = 65.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_accel.model.environment.config_files import load_environments
from gke_accel.workloads.size.fit import catalog_options, environment_fits
from gke_accel.workloads.size.memory import GIB, estimate_memory

CONFIG = Path(__file__).resolve().parents[2] / "config"


def test_a_model_too_large_for_one_v5e_slice_gets_a_multislice() -> None:
    est = estimate_memory(405e9, "train", context=4096, batch=8)
    assert est.total_bytes / GIB == pytest.approx(6161.0, abs=0.1)
    assert est.needed_bytes / GIB == pytest.approx(8214.6, abs=0.1)
    opts = {o.accelerator: o for o in catalog_options(est)}
    v5e = opts["v5e"]
    assert (v5e.slices, v5e.chips, v5e.memory_gib) == (3, 768, 12288)
    assert v5e.shape == "3 x 16x16 (v5litepod-256) multislice"
    assert v5e.hourly_on_demand == pytest.approx(921.60)
    assert (opts["v6e"].slices, opts["v6e"].shape) == (2, "2 x 16x16 (v6e-256) multislice")


def test_staging_counts_slices_over_both_configured_pools() -> None:
    [staging] = load_environments(CONFIG, ["staging"])
    fits = {f.pool: f for f in environment_fits(estimate_memory(20e9, "train", context=4096, batch=8), staging)}
    for pool in ("v5e-slice", "v5e-shared"):
        assert (fits[pool].units_needed, fits[pool].units_max, fits[pool].fits) == (4, 4, True)
        assert fits[pool].verdict == "fits in 4 slices (multislice: --slices 4)"
    big = {f.pool: f for f in environment_fits(estimate_memory(405e9, "train", context=4096, batch=8), staging)}
    assert big["v5e-slice"].verdict == "too small: needs 65 slices, 4 of this shape exist"


def test_single_host_slices_do_not_combine() -> None:
    """GKE: multislice runs on multi-host slice pools only (dev's v5e pool is single-host 2x2)."""
    [dev] = load_environments(CONFIG, ["dev"])
    fits = [
        f
        for f in environment_fits(estimate_memory(20e9, "train", context=4096, batch=8), dev)
        if f.accelerator == "v5e"
    ]
    assert fits and all(f.units_max == 1 and not f.fits for f in fits)
