"""docs/queues.md leads with the typical week: its headline table must say what the committed benchmark
results (benchmarks/queues/results/typical-*.json, written by the real controllers' runs) say."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "queues" / "results"
TEAMS = ("nlp", "research", "serving")


def headline_rows() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "queues.md").read_text()
    section = text.split("## What sharing buys, measured on a typical week", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| c") or
            line.startswith("| s")]  # fmt: skip
    return {cells[0].split()[0]: [c.strip() for c in cells[1:]] for cells in rows}


def test_the_docs_lead_with_the_typical_week_before_any_config() -> None:
    text = (ROOT / "docs" / "queues.md").read_text()
    headings = re.findall(r"^## (.*)$", text, flags=re.M)
    assert headings[0] == "What sharing buys, measured on a typical week"


@pytest.mark.parametrize(("row", "scenario"), [("cohort", "typical-cohort"), ("static", "typical-static")])
def test_the_headline_table_is_the_committed_results(row: str, scenario: str) -> None:
    d = json.loads((RESULTS / f"{scenario}.json").read_text())
    util, *waits, goodput = headline_rows()[row]
    assert util == f"**{d['utilization_by_resource']['google.com/tpu']:.1%}**"
    teams = d["teams"]
    assert waits == [f"{teams[t]['wait_p50_h']:g} / {teams[t]['wait_p95_h']:g}" for t in TEAMS]
    assert goodput == " / ".join(f"{teams[t]['goodput']:.0%}" for t in TEAMS)
