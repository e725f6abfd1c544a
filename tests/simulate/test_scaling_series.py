"""benchmarks/queues/scaling.py: the trace sizes of the scaling series and the table it prints."""

from __future__ import annotations

import pytest

from helpers import load_script

scaling = load_script("benchmarks/queues/scaling.py", "scaling")


@pytest.mark.parametrize("size", [25, 400])
def test_each_size_is_the_first_jobs_of_one_trace(size: int) -> None:
    jobs = scaling.prefix(size)
    longest = scaling.prefix(400)
    assert len(jobs) == size
    # a prefix of the same trace: the series only lengthens the run, the density of jobs stays
    assert [j.name for j in jobs] == [j.name for j in longest[:size]]
    assert [j.submit for j in jobs] == sorted(j.submit for j in jobs)


def test_a_size_beyond_the_bound_is_refused_before_any_twin(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        scaling.main(["--sizes", "25", "0"])
    assert exc.value.code == 2
    assert "--sizes: every size must be 1 to 10000 jobs, got [25, 0]" in capsys.readouterr().err


def test_the_table_gives_seconds_per_job_day_and_settle() -> None:
    row = {"jobs": 50, "simulated_days": 1.5, "settles": 120, "run_wall_s": 90.0, "startup_wall_s": 80.0,
           "s_per_job": 1.8, "s_per_simulated_day": 60.0, "s_per_settle": 0.75, "load_start": 1.0, "load_end": 2.0}
    assert scaling.table([row]).splitlines()[-1] == "| 50 | 1.5 | 120 | 90.0 | 1.8 | 60.0 | 0.75 | 80.0 | 1.0-2.0 |"
