"""A hand-written trace (tests/fixtures/traces/handwritten-day.yaml) through ``gke-accel simulate`` as a user
runs it (the installed command, the virtual clock, config/staging.yaml, ``--json --events``), once per
policy, and what it reports held to a schedule derived by hand. Two twins in all (about 1-2 min each).

From config/staging.yaml: 32 v5e chips in four 2x4 slices of 8, one Kueue flavor; nominal nlp 16,
research 8 (borrowing_limit 16), serving 8 (preempt_when_borrowing); 5 L4 GPUs on the ladder, nominal
nlp 1, serving 4 (spread over the rungs), research none (every flavor at nominal 0: it may borrow).
Classes: training is every team's default, inference is serving's and above it. From Kueue's documented
preemption (docs/queues.md "Preemption: the promise across the cohort"): ``reclaimWithinCohort:
LowerPriority`` lets a queue within its nominal take back lent quota from lower-priority workloads of
queues above theirs, down to their nominal; among equal candidates the most recently admitted goes first.
A preempted workload is requeued at once (no backoff without waitForPodsReady).

The trace: nothing before 3 h. TPU: n2 (nlp, 2 slices, 3 h, 2 h), r1 (research, 3 h 05, 3 h,
checkpoint 1 h), r2 (research, 3 h 10, 2 h, checkpoint 3 h: longer than the job, so none), s1 (serving
inference, 4 h, 1 h). L4: g1, g2 (serving inference, 3 h, 2 h: the same second), gr (research, 3 h, 1 h:
a team without L4 quota), gn (nlp, 3 h 30, 30 min, checkpoint = duration). Window: ``--until 8h``, from 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gke_accel.simulate import events
from gke_accel.simulate.events import Event

REPO = Path(__file__).resolve().parents[2]
GKE_ACCEL = str(Path(sys.executable).parent / "gke-accel")
TRACE = REPO / "tests" / "fixtures" / "traces" / "handwritten-day.yaml"
MIN, H = 60.0, 3600.0
TOL = 1 * MIN  # the virtual clock is exact; a minute of slack for the runner's event granularity


def simulate(tmp_path: Path, policy: str) -> tuple[dict[str, object], list[Event], str]:
    log = tmp_path / f"{policy}.events.jsonl"
    argv = [GKE_ACCEL, "simulate", "--env", "staging", "--config-dir", str(REPO / "config"), "--trace", str(TRACE),
            "--policy", policy, "--until", "8h", "--json", "--events", str(log)]  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp_path)},
                         cwd=REPO, timeout=900, check=False)  # fmt: skip
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return json.loads(out.stdout), events.load(log.read_text()), out.stderr


def at(log: list[Event], job: str, kind: str) -> list[float]:
    return [e.t for e in log if e.job == job and e.type == kind]


def near(found: list[float], expected_h: list[float]) -> bool:
    return len(found) == len(expected_h) and all(abs(f - e * H) <= TOL for f, e in zip(found, expected_h, strict=True))


def shown(log: list[Event]) -> str:
    return "\n".join(f"{e.t / MIN:7.1f} min {e.job} {e.type} {e.flavor} {e.chips} {e.detail} {e.lost}" for e in log)


def test_cohort_the_hand_derived_schedule(tmp_path: Path, scheduling_control_plane: None) -> None:
    """- 3 h: n2 takes nlp's 16; g1, g2 two of serving's 4 L4s; gr borrows an idle L4 (research has none).
    - 3 h 05: r1 fits research's 8. 3 h 10: r2 borrows serving's idle slice (research 16, within 8 + 16):
      all 32 chips held. 3 h 30: gn fits (4 of 5 L4s held).
    - 4 h: s1 (serving, inference, 8) is within serving's nominal, lent to research: serving reclaims it
      from research's training, down to research's nominal: one job, the most recently admitted, r2 (3 h
      10 against r1's 3 h 05). r2 ran 50 min and wrote no checkpoint: it loses 50 min and needs 2 h again.
      Requeued, it would have to borrow with nothing idle, and research may not preempt to borrow: waits.
    - 4 h: gr ends. 4 h: gn ends. 5 h: n2, s1, g1, g2 end: 24 chips idle, r2 borrows again: waited 1 h,
      runs to 7 h. 6 h 05: r1 ends.
    TPU chip-hours: n2 16 x 2 = 32, r1 8 x 3 = 24, r2 8 x 50/60 + 8 x 2 = 22.67, s1 8: 86.67 of
    32 x 8 = 256: 33.9%. GPU-hours: g1 2 + g2 2 + gr 1 + gn 0.5 = 5.5 of 5 x 8 = 40: 13.75%."""
    report, log, err = simulate(tmp_path, "cohort")
    assert near(at(log, "r2", "admitted"), [3 + 10 / 60, 5]), shown(log)
    (evicted,) = [e for e in log if e.type == "evicted"]
    assert (evicted.job, evicted.detail) == ("r2", "preempted") and abs(evicted.t - 4 * H) <= TOL, shown(log)
    assert evicted.lost == pytest.approx(50 * MIN, abs=TOL)  # no checkpoint: all 50 min of the run
    assert near(at(log, "s1", "admitted") + at(log, "s1", "finished"), [4, 5]), shown(log)
    assert near(at(log, "r2", "finished") + at(log, "r1", "finished"), [7, 6 + 5 / 60]), shown(log)
    assert near(at(log, "n2", "admitted") + at(log, "n2", "finished"), [3, 5]), shown(log)
    assert near(at(log, "gr", "admitted") + at(log, "gn", "admitted"), [3, 3.5]), shown(log)
    util = report["utilization_by_resource"]
    assert isinstance(util, dict)
    assert util["google.com/tpu"] == pytest.approx((32 + 24 + 8 * 50 / 60 + 16 + 8) / 256, abs=8 * 4 * TOL / H / 256)
    assert util["nvidia.com/gpu"] == pytest.approx(5.5 / 40, abs=4 * TOL / H / 40)
    teams = report["teams"]
    assert isinstance(teams, dict)
    nlp, research, serving = teams["nlp"], teams["research"], teams["serving"]
    # (submitted, admitted at least once, admissions, preempted, finished): r2 is admitted twice
    assert [nlp[k] for k in ("submitted", "admitted", "admissions", "preempted", "finished")] == [2, 2, 2, 0, 2]
    assert [research[k] for k in ("submitted", "admitted", "admissions", "preempted", "finished")] == [3, 3, 4, 1, 3]
    assert [serving[k] for k in ("submitted", "admitted", "admissions", "preempted", "finished")] == [3, 3, 3, 0, 3]
    # research's waits: r1 0, gr 0, r2 0 + 1 h (4 h -> 5 h): p50 the 2nd of [0, 0, 1] = 0, worst 1 h
    assert research["wait_max_h"] == pytest.approx(1.0, abs=TOL / H) and research["wait_p50_h"] <= TOL / H
    assert research["wait_p95_is_max"] and research["waits_n"] == 3 and research["first_wait_p95_h"] <= TOL / H
    assert nlp["wait_max_h"] <= TOL / H and serving["wait_max_h"] <= TOL / H
    # lost: 8 chips x 50 min; borrowed: r2 8 x 50 min (3 h 10 - 4 h) + 8 x 65 min (5 h - 6 h 05, beside r1)
    # + gr 1 GPU x 1 h (research's L4 nominal is 0) = 6.67 + 8.67 + 1 = 16.33 (chips and GPUs add up)
    assert research["lost_chip_h"] == pytest.approx(8 * 50 / 60, abs=8 * TOL / H)
    assert research["borrowed_chip_h"] == pytest.approx(8 * 50 / 60 + 8 * 65 / 60 + 1, abs=3 * 8 * TOL / H)
    # goodput: ran 24 + 22.67 + 1 = 47.67 of asked r1 8 x 3 h + r2 8 x (3 h 10 -> 7 h) + gr 1 x 1 h = 55.67
    assert research["goodput"] == pytest.approx(47.67 / 55.67, abs=0.01)
    assert "simulate: note" not in err, err


def test_static_the_hand_derived_schedule(tmp_path: Path, scheduling_control_plane: None) -> None:
    """``--policy static``: every queue's borrowingLimit 0. No one borrows, so no one is reclaimed from:
    - r2 (research's second slice) waits for r1 to end at 6 h 05 (2 h 55 min), then runs past the window
      (8 h): 1 h 55 min of it is counted. s1 at 4 h finds serving's own 8 idle: no preemption.
    - gr (research, no L4 quota, may not borrow) is never admitted: it waits 3 h -> 8 h = 5 h, and the run
      says why.
    TPU: n2 32 + r1 24 + r2 8 x 115/60 = 15.33 + s1 8 = 79.33 of 256: 31.0%. GPU: g1 2 + g2 2 + gn 0.5 =
    4.5 of 40: 11.25%."""
    report, log, err = simulate(tmp_path, "static")
    assert near(at(log, "r2", "admitted"), [6 + 5 / 60]) and at(log, "r2", "finished") == [], shown(log)
    assert at(log, "gr", "admitted") == [] and [e for e in log if e.type == "evicted"] == [], shown(log)
    assert near(at(log, "s1", "admitted"), [4]), shown(log)
    util = report["utilization_by_resource"]
    assert isinstance(util, dict)
    assert util["google.com/tpu"] == pytest.approx((32 + 24 + 8 * 115 / 60 + 8) / 256, abs=8 * 4 * TOL / H / 256)
    assert util["nvidia.com/gpu"] == pytest.approx(4.5 / 40, abs=4 * TOL / H / 40)
    teams = report["teams"]
    assert isinstance(teams, dict)
    research = teams["research"]
    keys = ("submitted", "admitted", "preempted", "finished", "never_admitted")
    assert [research[k] for k in keys] == [3, 2, 0, 1, 1]  # r2 runs past 8 h; gr never admitted
    # waits [r1 0, r2 2 h 55, gr 5 h]: p50 the 2nd = 2.92 h, worst 5 h; first waits the same
    assert research["wait_p50_h"] == pytest.approx(2 + 55 / 60, abs=TOL / H)
    assert research["wait_max_h"] == pytest.approx(5.0, abs=TOL / H)
    assert research["borrowed_chip_h"] == 0 and teams["serving"]["preempted"] == 0
    assert "simulate: note: policy static: 1 jobs need more chips" in err and err.rstrip().endswith(": gr (1 > 0)"), err
