"""The bench tooling without the twin: ``bench_queues.py --until`` (which jobs a cut run measures, its
window, ``cut_short_at_day``, the offered load over the cut window) and ``two_slice.py``'s rows from a
hand-written result, event log and trace. Every expected number is worked out by hand in the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gke_accel.model import ConfigError
from gke_accel.simulate import events
from gke_accel.simulate.events import Event
from gke_accel.simulate.trace import TraceJob
from helpers import load_script

bench = load_script("benchmarks/queues/bench_queues.py", "bench_queues_until")
two_slice = load_script("benchmarks/queues/two_slice.py", "two_slice")
H, DAY = 3600.0, 86400.0


def job(name: str, submit_d: float, duration_h: float, slices: int = 1) -> TraceJob:
    return TraceJob(name, submit_d * DAY, "nlp", "v5e", duration_h * H, chips=8, slices=slices)


# the typical week's window: a warm-up day, then to day 8
JOBS = [job("a", 0.5, 10), job("b", 1.0, 12), job("c", 2.9, 6, slices=2), job("d", 3.0, 24), job("e", 7.5, 48)]
CAPACITY = {"v5e": 32, "l4": 5}


def test_until_cuts_the_window_measures_the_jobs_submitted_in_it_and_says_so() -> None:
    win = bench.window(JOBS, CAPACITY, DAY, 8 * DAY, 3.0)
    # [1 d, 3 d): a (0.5 d) is warm-up, b (exactly 1 d) is in, c (2.9 d) in, d (exactly 3 d) out
    assert [j.name for j in win.measured] == ["b", "c"]
    assert (win.warmup, win.until, win.cut_short_at_day) == (DAY, 3 * DAY, 3.0)
    # offered: b 8 chips x 12 h + c 2 slices x 8 chips x 6 h = 96 + 96 = 192 chip-h, over the cut window:
    # 32 chips x 48 h = 1536 chip-h -> 12.5%; no L4 job: 0
    assert win.offered_load == pytest.approx({"v5e": 0.125, "l4": 0.0})


def test_without_until_or_with_one_at_or_past_the_scenario_window_nothing_is_cut() -> None:
    for until_days in (None, 8.0, 10.0):
        win = bench.window(JOBS, CAPACITY, DAY, 8 * DAY, until_days)
        # [1 d, 8 d): b, c, d, e; 192 + 8 x 24 + 8 x 48 = 768 chip-h over 32 x 168 h = 5376: 1/7
        assert [j.name for j in win.measured] == ["b", "c", "d", "e"], until_days
        assert (win.until, win.cut_short_at_day) == (8 * DAY, None), until_days
        assert win.offered_load["v5e"] == pytest.approx(1 / 7)


def test_a_cut_within_the_warm_up_is_refused_before_any_twin_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="empty"):
        bench.window(JOBS, CAPACITY, DAY, 8 * DAY, 1.0)  # [1 d, 1 d): nothing to measure
    assert bench.window(JOBS, CAPACITY, 0.0, DAY, 0.5).cut_short_at_day == 0.5  # no warm-up: half a day is a window
    started: list[str] = []
    monkeypatch.setattr(bench, "run_one", lambda name, *a: started.append(name))
    monkeypatch.setattr(bench, "table", lambda out: "")
    for until in ("0.5", "1", "nan", "-1"):
        with pytest.raises(SystemExit) as exit_:
            bench.main(["--only", "typical-cohort", "--until", until, "--parallel", "1"])
        assert exit_.value.code == 2, until
    assert started == []
    assert bench.main(["--only", "inference-peak", "--until", "0.5", "--parallel", "1"]) == 0  # warm-up 0
    assert started == ["inference-peak"]


def write_result(folder: Path, trace_file: str = "wk.trace.csv") -> None:
    """A 10-hour result measured from 1 h: nlp's one-slice a (warm-up), b, c; nlp's two-slice d, research's
    two-slice e; serving's L4 f (not a v5e job: in no row)."""
    (folder / "wk.json").write_text(json.dumps({"horizon_h": 10.0, "measured_from_h": 1.0}))
    (folder / trace_file).write_text(
        "name,submit,team,accelerator,chips,slices,duration\n"
        "a,0,nlp,v5e,8,1,2h\nb,1h,nlp,v5e,8,1,2h\nc,2h,nlp,v5e,8,1,4h\n"
        "d,1h,nlp,v5e,8,2,3h\ne,2h,research,v5e,8,2,6h\nf,1h,serving,l4,1,1,1h\n"
    )
    log = [
        Event(0, "a", "nlp", "submitted"), Event(0, "a", "nlp", "admitted", "v5e-2x4", 8),
        Event(2 * H, "a", "nlp", "finished"),
        Event(1 * H, "b", "nlp", "submitted"), Event(3 * H, "b", "nlp", "admitted", "v5e-2x4", 8),
        Event(5 * H, "b", "nlp", "finished"),
        Event(2 * H, "c", "nlp", "submitted"), Event(2 * H, "c", "nlp", "admitted", "v5e-2x4", 8),
        Event(4 * H, "c", "nlp", "evicted", detail="preempted"), Event(7 * H, "c", "nlp", "admitted", "v5e-2x4", 8),
        Event(9 * H, "c", "nlp", "finished"),
        Event(1 * H, "d", "nlp", "submitted"),
        Event(2 * H, "e", "research", "submitted"), Event(6.5 * H, "e", "research", "admitted", "v5e-2x4", 16),
        Event(1 * H, "f", "serving", "submitted"), Event(1 * H, "f", "serving", "admitted", "l4", 1),
    ]  # fmt: skip
    (folder / "wk.events.jsonl").write_text(events.dump(log))


def test_two_slice_rows_split_the_waits_by_slices(tmp_path: Path) -> None:
    write_result(tmp_path)
    assert two_slice.rows("wk", "wk", None, tmp_path) == [
        # one slice, nlp: a is the warm-up's; b waited 1 h -> 3 h = 2 h; c 0 h, then preempted at 4 h and
        # admitted again at 7 h: 3 h. waits [2, 3]: p50 the 1st = 2, p95 the 2nd = 3; first waits [0, 2]
        "| wk | 10 h | nlp | 1 | 2 | 2.0 / 3.0 | 0.0 / 2.0 | 0 |",
        # two slices: d never admitted, waits 1 h -> the end (10 h) = 9 h; e 2 h -> 6.5 h = 4.5 h
        "| wk | 10 h | nlp | 2 | 1 | 9.0 / 9.0 | 9.0 / 9.0 | 1 |",
        "| wk | 10 h | research | 2 | 1 | 4.5 / 4.5 | 4.5 / 4.5 | 0 |",
    ]
    assert two_slice.rows("wk", "wk", 12.0, tmp_path) == two_slice.rows("wk", "wk", None, tmp_path)  # past the end


def test_two_slice_until_cuts_every_log_at_that_hour(tmp_path: Path) -> None:
    write_result(tmp_path)
    assert two_slice.rows("wk", "wk", 6.0, tmp_path) == [
        # the log before 6 h: b 2 h; c 0 h + 4 h -> 6 h (its 7 h admission is cut) = 2 h, so [2, 2]
        "| wk | 6 h | nlp | 1 | 2 | 2.0 / 2.0 | 0.0 / 2.0 | 0 |",
        # d 1 h -> 6 h = 5 h; e's admission at 6.5 h is cut: 2 h -> 6 h = 4 h, never admitted
        "| wk | 6 h | nlp | 2 | 1 | 5.0 / 5.0 | 5.0 / 5.0 | 1 |",
        "| wk | 6 h | research | 2 | 1 | 4.0 / 4.0 | 4.0 / 4.0 | 1 |",
    ]


def test_two_slice_reads_the_published_0_17_trace_by_the_name_trace(tmp_path: Path) -> None:
    write_result(tmp_path, trace_file="trace.csv")  # results/trace.csv, not wk.trace.csv
    assert len(two_slice.rows("wk", "trace", None, tmp_path)) == 3
    with pytest.raises(ConfigError, match=r"wk\.trace\.csv: cannot be read"):
        two_slice.rows("wk", "wk", None, tmp_path)
