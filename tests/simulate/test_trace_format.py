"""The trace format: parsing, every mistake at once (file, line, field, value, valid values), round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gke_accel.model import ConfigError
from gke_accel.simulate.durations import format_duration, parse_duration
from gke_accel.simulate.trace import TraceJob, parse_trace, to_csv, to_yaml

HELP = "a duration like 90m, 2h30m, 1d, 45s or a number of minutes"  # what the user reads
GOOD_CSV = """name,submit,team,accelerator,chips,slices,duration,priority,checkpoint,kind
a,0,nlp,v5e,8,1,2h,,30m,jobset
b,1h30m,serving,l4,1,1,90,inference,,job
"""


def test_a_csv_trace_is_read_with_its_units() -> None:
    a, b = parse_trace(GOOD_CSV, "t.csv")
    assert a == TraceJob(name="a", submit=0.0, team="nlp", accelerator="v5e", duration=7200.0, chips=8,
                         slices=1, kind="jobset", priority=None, checkpoint=1800.0)  # fmt: skip
    # a bare number is minutes: 90 -> 5400 s; 1h30m -> 5400 s
    assert (b.submit, b.duration, b.priority, b.checkpoint, b.kind) == (5400.0, 5400.0, "inference", None, "job")


def test_a_yaml_trace_is_read_and_sorted_by_submit_time() -> None:
    text = (
        "jobs:\n  - {submit: 2h, team: nlp, accelerator: v5e, duration: 1h}\n"
        "  - {submit: 1h, team: research, accelerator: v5e, duration: 1d}\n"
    )
    jobs = parse_trace(text, "t.yaml")
    assert [(j.name, j.team, j.submit, j.duration) for j in jobs] == [("j0002", "research", 3600.0, 86400.0),
                                                                    ("j0001", "nlp", 7200.0, 3600.0)]  # fmt: skip


def test_every_mistake_is_reported_at_once_with_line_field_value_and_valid_values() -> None:
    text = (
        "name,submit,team,accelerator,chips,duration,kind,checkpoint\n"
        "A_1,soon,nlp,v5e,eight,0,pod,-5\nok,1h,,v5e,8,1h,,\nok,2h,nlp,v5e,8,1h,,\n"
    )
    with pytest.raises(ConfigError) as err:
        parse_trace(text, "jobs.csv")
    lines = [i.render() for i in err.value.issues]
    assert lines == [
        "jobs.csv:2: submit: 'soon' is not a duration; valid: " + HELP,
        "jobs.csv:2: duration: '0' is zero; valid: more than 0",
        "jobs.csv:2: checkpoint: '-5' is not a duration; valid: " + HELP,
        "jobs.csv:2: chips: 'eight' is not a whole number from 1 to 100000; valid: 1, 2, 4, 8, ...",
        "jobs.csv:2: kind: 'pod' is not a kind; valid: job, jobset, deployment",
        "jobs.csv:2: name: 'A_1' is not a lowercase DNS label of at most 40 characters; valid: e.g. nlp-pretrain-3",
        "jobs.csv:3: team: is missing; valid: a value (required fields: submit, team, accelerator)",
        "jobs.csv:4: name: 'ok' is used twice; valid: a name per job (rows of one deployment share theirs)",
    ]


def test_a_header_without_required_columns_or_with_unknown_ones_is_refused() -> None:
    fields = "submit, team, kind, accelerator, chips, slices, duration, priority, checkpoint, replicas, name"
    with pytest.raises(ConfigError) as err:
        parse_trace("submit,team,gpus\n0,nlp,1\n", "x.csv")
    assert [i.render() for i in err.value.issues] == [
        f"x.csv:1: gpus: is not a trace field; valid: {fields}",
        f"x.csv:1: the header has no 'accelerator' column; valid: {fields}",
    ]


def test_yaml_that_is_not_a_list_of_jobs_is_refused() -> None:
    for text, message in (("{a: [1", "is not valid YAML"), ("7", "has no list of jobs")):
        with pytest.raises(ConfigError) as err:
            parse_trace(text, "t.yaml")
        assert message in err.value.issues[0].message
    with pytest.raises(ConfigError) as err:
        parse_trace("# a comment\n- 3\n", "t.yaml")
    assert err.value.issues[0].render() == "t.yaml:2: jobs[0]: 3 is not a mapping; valid: submit: ..., team: ..., ..."
    with pytest.raises(ConfigError) as err:  # under `jobs:`, with the line of each item
        parse_trace("jobs:\n  - {submit: 0, team: nlp, accelerator: v5e, duration: 1h}\n\n  - {}\n", "t.yaml")
    required = ("submit", "team", "accelerator", "duration")  # a job row's (docs/simulate.md)
    assert {i.path for i in err.value.issues} == {"t.yaml:4: jobs[1]: " + k for k in required}


@pytest.mark.parametrize(("text", "seconds"), [("45s", 45), ("90m", 5400), ("2h30m", 9000), ("1d", 86400),
                                               ("1d2h", 93600), ("1.5", 90), ("0", 0), ("", None), ("2x", None),
                                               ("-1", None), ("h", None), ("nan", None)])  # fmt: skip
def test_durations(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


names = st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True)
times = st.integers(min_value=0, max_value=30 * 86400).map(float)
positive = st.integers(min_value=1, max_value=30 * 86400).map(float)
jobs = st.builds(
    TraceJob, name=names, submit=times, team=names, accelerator=st.sampled_from(["v5e", "l4", "h100"]),
    duration=positive, chips=st.none() | st.integers(1, 256), slices=st.integers(1, 8),
    kind=st.none() | st.sampled_from(["job", "jobset"]), priority=st.none() | names,
    checkpoint=st.none() | positive,
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(jobs, min_size=1, max_size=8, unique_by=lambda j: j.name))
def test_written_traces_read_back_the_same(trace: list[TraceJob]) -> None:
    expected = sorted(trace, key=lambda j: (j.submit, j.name))
    assert parse_trace(to_csv(trace), "t.csv") == expected
    assert parse_trace(to_yaml(trace), "t.yaml") == expected


@given(st.integers(min_value=0, max_value=10**8))
def test_format_duration_is_the_inverse_of_parse(seconds: int) -> None:
    assert parse_duration(format_duration(seconds)) == seconds
