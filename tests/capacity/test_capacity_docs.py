"""docs/capacity.md shows the staging ladder as the cost model prices it: the table in the doc is the
one ``synth`` prints (model/capacity/view.py over model/observability/cost.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_accel.model import load_environment
from gke_accel.model.capacity.view import HEADERS, ladder_rows
from gke_accel.model.environment.ladders import ladders_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_table_is_the_cost_models() -> None:
    env = load_environment(ROOT / "tests" / "fixtures" / "capacity" / "staging-ladder.yaml")
    [ladder] = ladders_of(env)
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(str(c) for c in row.cells()) + " |" for row in ladder_rows(env, ladder)]
    assert "\n".join(lines) in (ROOT / "docs" / "capacity.md").read_text()


def test_spot_is_cheaper_than_the_reservation_per_chip_hour() -> None:
    # catalog/prices.yaml (2026-07-30): v5e $1.20 per chip-hour on-demand; Spot is its own, lower price
    env = load_environment(ROOT / "tests" / "fixtures" / "capacity" / "staging-ladder.yaml")
    [ladder] = ladders_of(env)
    rows = {r.rung: r for r in ladder_rows(env, ladder)}
    assert rows["reservation/r-ml-1"].chip_hour == rows["on-demand"].chip_hour == 1.2
    spot = rows["spot"].chip_hour
    assert spot is not None and spot < 1.2


def test_synth_prints_the_ladder_with_the_pools_behind_each_rung() -> None:
    from gke_accel.cli.main import environment_report

    env = load_environment(ROOT / "tests" / "fixtures" / "capacity" / "staging-ladder.yaml")
    text = environment_report(env)
    assert "capacity ladder v5e-2x4 (ComputeClass v5e-2x4, whenUnsatisfiable DoNotScaleUp)" in text
    lines = [line for line in text.splitlines() if line.startswith(("1 ", "2 ", "3 "))]
    assert [line.split()[1] for line in lines] == ["reservation/r-ml-1", "on-demand", "spot"]
    assert "v5e-spot-s0, v5e-spot-s1" in lines[2]


def test_manifests_for_gitops_hold_the_compute_class() -> None:
    from gke_accel.cli.manifests_view import environment_manifests

    env = load_environment(ROOT / "tests" / "fixtures" / "capacity" / "staging-ladder.yaml")
    [cc] = [m for m in environment_manifests(env) if m["kind"] == "ComputeClass"]
    assert cc["apiVersion"] == "cloud.google.com/v1" and cc["metadata"] == {
        "name": "v5e-2x4",
        "labels": {"app.kubernetes.io/managed-by": "gke-accel"},
    }


# --- staging's shipped L4 ladder (config/staging.yaml: capacity.l4, pools l4-reserved, l4-serve, l4-spot) ---
STAGING = ROOT / "config" / "staging.yaml"


def test_the_docs_table_of_stagings_l4_ladder_is_the_cost_models() -> None:
    env = load_environment(STAGING)
    [ladder] = ladders_of(env)
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(str(c) for c in row.cells()) + " |" for row in ladder_rows(env, ladder)]
    assert "\n".join(lines) in (ROOT / "docs" / "capacity.md").read_text()


def test_stagings_l4_rungs_are_priced_from_the_catalog() -> None:
    # catalog/prices.yaml (2026-07-30): g2-standard-12 (one L4) $1.0004 an hour on-demand, $0.5624 Spot;
    # a reserved VM costs what an on-demand one does
    env = load_environment(STAGING)
    [ladder] = ladders_of(env)
    rows = {r.rung: r for r in ladder_rows(env, ladder)}
    assert rows["reservation/r-l4-serve"].chip_hour == rows["on-demand"].chip_hour == pytest.approx(1.0004, abs=5e-3)
    assert rows["spot"].chip_hour == pytest.approx(0.5624, abs=5e-3)


def test_synth_prints_stagings_l4_ladder_in_its_order() -> None:
    from gke_accel.cli.main import environment_report

    text = environment_report(load_environment(STAGING))
    header = "capacity ladder l4 (ComputeClass l4, whenUnsatisfiable DoNotScaleUp)"
    assert header in text
    after = text.split(header, 1)[1].splitlines()
    rows = [line.split()[1:5] for line in after if line.startswith(("1 ", "2 ", "3 "))][:3]
    assert rows == [
        ["reservation/r-l4-serve", "l4-reservation-r-l4-serve", "l4-reserved", "2"],
        ["on-demand", "l4-on-demand", "l4-serve", "1"],
        ["spot", "l4-spot", "l4-spot", "2"],
    ]
