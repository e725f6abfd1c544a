"""``validate`` stays pure Python and fast: all shipped environments well under 0.3 s."""

from __future__ import annotations

import time
from pathlib import Path

from gke_accel.catalog import load_catalog
from gke_accel.model.environment.config_files import load_environments

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("dev", "staging", "prod")


def test_validating_every_shipped_environment_takes_under_300_ms() -> None:
    load_catalog()  # the catalog loads once per process; the CLI pays it once too
    best = min(_timed() for _ in range(3))
    assert best < 0.3, f"validate took {best:.3f}s"


def _timed() -> float:
    started = time.perf_counter()
    # the shipped three by name: `gke-accel init qa` (the README's example) may have added more files
    plans = load_environments(ROOT / "config", list(SHIPPED))
    assert [p.name for p in plans] == list(SHIPPED)
    return time.perf_counter() - started
