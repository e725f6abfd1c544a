"""``gke-accel simulate`` as a user runs it (the installed command, the virtual clock, config/staging.yaml):
a three-job trace gives the hand-computed report, and the run leaves no state directory behind.

By hand, from config/staging.yaml (32 v5e chips in four 8-chip slices: nlp 16, research 8, serving 8
nominal; research may borrow up to 16 more; 5 L4 GPUs on its L4 ladder) and the metrics' rules (simulate/metrics.py's
doc: borrowed = chips above nominal, lent = that split among the teams below their nominal by how
far below they are):
- research-a (1 slice, 0-2 h) fits research's nominal; research-b (1 slice, from 10 min, 1 h) borrows
  an idle slice; serving-a (1 L4, from 20 min, 30 min) fits serving's L4 share (its reserved GPU). Nobody waits.
- research borrows 8 chips for 1 h: 8.0 chip-h; nlp (16 idle) and serving (8 idle) lend 2/3 and 1/3
  of it: 5.3 and 2.7 chip-h.
- the run ends with the last job, at 2 h: 24 of 64 TPU chip-hours, 37.5%; 0.5 of 10 GPU-hours, 5%.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GKE_ACCEL = str(Path(sys.executable).parent / "gke-accel")
TRACE = """\
submit,team,kind,accelerator,chips,slices,duration,priority,checkpoint,name
0m,research,,v5e,8,1,2h,,30m,research-a
10m,research,,v5e,8,1,1h,,30m,research-b
20m,serving,job,l4,1,1,30m,inference,,serving-a
"""


def test_a_three_job_trace_gives_the_hand_computed_report_and_leaves_no_state(
    tmp_path: Path, scheduling_control_plane: None
) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    argv = [GKE_ACCEL, "simulate", "--env", "staging", "--config-dir", str(REPO / "config"), "--trace", str(trace),
            "--json"]  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)}, cwd=REPO,
                         timeout=600, check=False)  # fmt: skip
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    report = json.loads(out.stdout)
    teams = report["teams"]
    for team, jobs in (("research", 2), ("serving", 1)):
        assert (teams[team]["submitted"], teams[team]["admitted"], teams[team]["finished"]) == (jobs, jobs, jobs)
        assert teams[team]["wait_max_h"] == pytest.approx(0.0, abs=0.02)
    assert teams["research"]["borrowed_chip_h"] == pytest.approx(8.0, abs=0.2)
    assert teams["nlp"]["lent_chip_h"] == pytest.approx(16 / 3, abs=0.2)
    assert teams["serving"]["lent_chip_h"] == pytest.approx(8 / 3, abs=0.2)
    assert report["utilization_by_resource"]["google.com/tpu"] == pytest.approx(0.375, abs=0.01)
    assert report["utilization_by_resource"]["nvidia.com/gpu"] == pytest.approx(0.05, abs=0.005)
    assert list(tmp.iterdir()) == [], "simulate left its state directory behind"
