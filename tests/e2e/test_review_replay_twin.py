"""The review's queue replay on the real twin of staging (kube-apiserver, Kueue 0.19.2, JobSet 0.12.0,
kwok nodes): the acceptance cases of review/replay.py.

- a PR setting serving's borrowing limit to 0 (v5e and L4; serving is the team that borrows in the
  base replays of this trace): its borrowed chip-hours fall to 0 (Kueue admits nothing above nominal
  for a ClusterQueue with borrowingLimit 0) and its p95 wait does not improve;
- a PR moving 8 v5e chips of nominal quota from nlp to research: research's p95 wait does not worsen;
- head = base (``--replay always``): every cell is "no change";
- a PR touching only alerts: no replay runs (no twin starts).

To keep CI short the trace is ``HOURS`` of the standard trace (the product's default is 24 h), the two
base replays are shared by the three cases, and the five replays run three at a time (their time is
waiting on the controllers' periods, not CPU). Each replay's wall seconds are printed (``-s``).
"""

from __future__ import annotations

import copy
import json
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.review.model import Review, StackReview
from gke_accel.review.render import to_markdown
from gke_accel.review.replay import (
    ReplaySection,
    ReplaySettings,
    add_replay,
    replay_environment,
    run_twin,
    standard_trace,
)
from gke_accel.review.workloads import load_plans

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
STAGING = yaml.safe_load((ROOT / "config" / "staging.yaml").read_text())
HOURS = 8.0
SETTINGS = ReplaySettings(hours=HOURS, resolution=3600.0, budget=900.0)


def borrow_zero() -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(STAGING)
    data["queues"]["teams"]["serving"]["borrowing_limit"] = {"v5e": 0, "l4": 0}
    return data


def more_for_research() -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(STAGING)
    data["teams"][0]["accelerators"]["v5e"] = 8  # nlp 16 -> 8
    data["teams"][1]["accelerators"]["v5e"] = 16  # research 8 -> 16
    return data


def alerts_only() -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(STAGING)
    data["monitoring"]["thresholds"] = {"gpu_idle_percent": 3}
    return data


CASES = {"base": STAGING, "same": STAGING, "borrow0": borrow_zero(), "nominal": more_for_research()}


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("review-replay")
    out = {}
    for name, data in {**CASES, "alerts": alerts_only()}.items():
        (root / name).mkdir()
        (root / name / "staging.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        out[name] = root / name
    return out


@pytest.fixture(scope="module")
def replays(configs: dict[str, Path], scheduling_control_plane: None) -> Iterator[dict[str, list[Future[Any]]]]:
    """Every twin run the cases need, started at once (three at a time): base twice, each head once."""
    plans, _ = load_plans(configs["base"])
    jobs = standard_trace(plans["staging"], SETTINGS)
    deadline = time.monotonic() + SETTINGS.budget
    pool = ThreadPoolExecutor(max_workers=3)
    order = ["base", "base", "borrow0", "nominal", "same"]
    runs: dict[str, list[Future[Any]]] = defaultdict(list)
    for name in order:
        runs[name].append(pool.submit(run_twin, "staging", jobs, configs[name], deadline, SETTINGS))
    try:
        yield runs
    finally:
        pool.shutdown(wait=True)


def section(case: str, configs: dict[str, Path], replays: dict[str, list[Future[Any]]]) -> ReplaySection:
    """``replay_environment`` of base -> ``case``, its runs the shared ones."""
    taken: dict[str, int] = defaultdict(int)

    def run(env: str, jobs: list[Any], config_dir: Path, deadline: float) -> dict[str, Any]:
        name = "base" if config_dir == configs["base"] else case
        i = taken[name]
        taken[name] += 1
        result: dict[str, Any] = replays[name][i].result()
        return result

    base_plans, _ = load_plans(configs["base"])
    head_plans, _ = load_plans(configs[case])
    out = replay_environment("staging", base_plans["staging"], head_plans["staging"], configs["base"],
                             configs[case], SETTINGS, time.monotonic() + SETTINGS.budget, run)  # fmt: skip
    print(json.dumps(out.as_dict()["teams"]))
    for r in out.runs:
        print(f"replay {case}: {r['side']} run {r['wall_s']} wall s ({r['startup_s']} s startup) {r['notes']}")
    return out


def show(s: ReplaySection) -> str:
    review = Review("base", "head", stacks=[StackReview("staging", "changed")])
    review.stacks[0].replay = s
    return to_markdown(review)


def test_borrowing_limit_zero(configs: dict[str, Path], replays: dict[str, list[Future[Any]]]) -> None:
    s = section("borrow0", configs, replays)
    print(show(s))
    assert s.status == "replayed", s.reason
    serving = s.cells["serving"]
    assert min(serving["borrowed_chip_h"].base) > 0, "serving borrows in no base replay: the case cannot fail"
    assert serving["borrowed_chip_h"].head == 0.0
    assert serving["wait_p95_h"].verdict != "lower", serving["wait_p95_h"]


def test_raised_nominal_quota(configs: dict[str, Path], replays: dict[str, list[Future[Any]]]) -> None:
    s = section("nominal", configs, replays)
    print(show(s))
    assert s.status == "replayed", s.reason
    assert s.cells["research"]["wait_p95_h"].verdict != "higher", s.cells["research"]["wait_p95_h"]


def test_head_equal_to_base_is_no_change(configs: dict[str, Path], replays: dict[str, list[Future[Any]]]) -> None:
    s = section("same", configs, replays)
    text = show(s)
    print(text)
    assert s.status == "replayed", s.reason
    verdicts = {(team, m): c.verdict for team, cells in s.cells.items() for m, c in cells.items()}
    assert set(verdicts.values()) == {"no change"}, {k: v for k, v in verdicts.items() if v != "no change"}
    assert s.lost == {}
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 4 and not any("→" in row for row in rows), rows  # the header and three teams


def test_alerts_only_runs_no_replay(configs: dict[str, Path]) -> None:
    review = Review("base", "head", stacks=[StackReview("staging", "changed")])
    started = time.monotonic()
    add_replay(review, configs["base"], configs["alerts"], ({}, {}), SETTINGS)
    assert review.stacks[0].replay.status == "not needed"
    assert time.monotonic() - started < 30  # no twin started (one takes a minute to come up)
