"""N16: ``size`` on dev's single-host 2x2 v5e slice says why a model too big for it does not fit
(single-host slices never form a multislice), not "the pool has at most 1" while dev.yaml says
max_slices: 2. Worked by hand: a 2x2 v5e slice is 4 chips x 16 GiB HBM (Google's v5e page) = 64 GiB;
7B train provisions 150.4 GiB (docs/workloads.md): ceil(150.4 / 64) = 3."""

from __future__ import annotations

from pathlib import Path

from gke_accel.model.environment.config_files import load_environments
from gke_accel.workloads.size.fit import environment_fits
from gke_accel.workloads.size.memory import estimate_memory

CONFIG = Path(__file__).resolve().parents[2] / "config"


def test_a_single_host_slice_too_small_says_it_cannot_be_combined() -> None:
    [dev] = load_environments(CONFIG, ["dev"])
    fits = {f.pool: f for f in environment_fits(estimate_memory(7e9, "train"), dev)}
    v5e = fits["v5e-dev"]
    assert not v5e.fits and v5e.single_host
    assert v5e.verdict == (
        "too small: a single-host 2x2 slice holds 64 GiB and cannot be combined "
        "(multislice needs multi-host slices); needs 3x that"
    )


def test_a_model_that_fits_the_single_host_slice_says_so() -> None:
    [dev] = load_environments(CONFIG, ["dev"])
    fits = {f.pool: f for f in environment_fits(estimate_memory(1e9, "train"), dev)}
    assert fits["v5e-dev"].verdict == "fits in one slice"
