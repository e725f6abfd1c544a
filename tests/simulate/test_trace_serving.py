"""The trace's serving kind (``kind: deployment``, simulate/trace.py): rows with one name are one
Deployment, each sets its replica count from ``submit`` on; every mistake at once with file, line,
field, value and what is valid; written traces read back the same."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gke_accel.model import ConfigError
from gke_accel.simulate.trace import TraceJob, parse_trace, scale_steps, to_csv, to_yaml

H = 3600.0
OLD = "name,submit,team,accelerator,chips,duration\na,0,nlp,v5e,8,1h\n"  # a trace from before deployments


def issues(text: str, source: str = "s.csv") -> list[str]:
    with pytest.raises(ConfigError) as err:
        parse_trace(text, source)
    return [i.render() for i in err.value.issues]


def test_a_trace_without_a_replicas_column_still_parses() -> None:
    (job,) = parse_trace(OLD, "old.csv")
    assert (job.name, job.kind, job.replicas, job.duration) == ("a", None, None, H)


def test_rows_of_one_name_are_one_deployment_scaled_from_each_submit_on() -> None:
    text = (
        "name,submit,team,kind,accelerator,chips,replicas,priority\n"
        "web,1h,serving,deployment,l4,1,2,inference\nweb,3h,serving,deployment,l4,1,1,inference\n"
        "web,4h,serving,deployment,l4,1,0,inference\n"
    )
    rows = parse_trace(text, "s.csv")
    assert [(r.name, r.submit, r.replicas, r.duration) for r in rows] == [
        ("web", H, 2, 0.0), ("web", 3 * H, 1, 0.0), ("web", 4 * H, 0, 0.0)]  # fmt: skip
    assert scale_steps(rows) == [(H, 2), (3 * H, 1), (4 * H, 0)]


def test_a_duration_holds_the_count_that_long_then_scales_to_zero() -> None:
    text = "name,submit,team,kind,accelerator,replicas,duration\nweb,0,serving,deployment,l4,3,2h\n"
    assert scale_steps(parse_trace(text, "s.csv")) == [(0.0, 3), (2 * H, 0)]
    # a next row exactly at the end takes over from there
    text += "web,2h,serving,deployment,l4,1,\n"
    assert scale_steps(parse_trace(text, "s.csv")) == [(0.0, 3), (2 * H, 1)]


def test_a_yaml_deployment_reads_like_a_csv_one() -> None:
    text = (
        "jobs:\n  - {name: web, submit: 0, team: serving, kind: deployment, accelerator: l4, replicas: 2}\n"
        "  - {name: web, submit: 1h, team: serving, kind: deployment, accelerator: l4, replicas: 0}\n"
    )
    assert [(r.submit, r.replicas) for r in parse_trace(text, "s.yaml")] == [(0.0, 2), (H, 0)]


def test_every_serving_mistake_is_reported_at_once() -> None:
    text = (
        "name,submit,team,kind,accelerator,chips,slices,replicas,duration,checkpoint,priority\n"
        "web,0,serving,deployment,v5e,8,2,-1,,30m,inference\n"  # 2: slices, replicas, checkpoint
        "train,0,nlp,job,v5e,8,1,3,1h,,\n"  # 3: replicas on a job row
        ",0,serving,deployment,l4,1,1,,,,\n"  # 4: no name, no replicas
        "api,0,serving,deployment,l4,1,1,2,2h,,inference\n"
        "api,1h,serving,deployment,l4,2,1,1,,,training\n"  # 6: before row 5 ends; chips and priority differ
        "api,1h,serving,deployment,l4,1,1,0,,,inference\n"  # 7: same time as row 6 (and before row 5 ends)
        "train,2h,serving,deployment,l4,1,1,1,,,\n"  # 8: a job's name
    )
    assert issues(text) == [
        "s.csv:2: replicas: '-1' is not a whole number from 0 to 100000; valid: 0 (scaled to zero), 1, 2, ...",
        "s.csv:2: slices: 2 slices for a deployment; valid: 1 (a replica is one pod; a multislice server is not a "
        "Deployment)",
        "s.csv:2: checkpoint: '30m' on a deployment row; valid: empty (a server keeps no work to lose)",
        "s.csv:3: replicas: '3' is set on a job row; valid: replicas only with kind deployment",
        "s.csv:4: name: is missing; valid: a value (required for a deployment)",
        "s.csv:4: replicas: is missing; valid: a value (required for a deployment)",
        "s.csv:8: name: 'train' is used twice; valid: a name per job (rows of one deployment share theirs)",
        "s.csv:6: chips: 2 differs from 1 (s.csv:5); valid: the same chips on every row of deployment api",
        "s.csv:6: priority: 'training' differs from 'inference' (s.csv:5); valid: the same priority on every row "
        "of deployment api",
        "s.csv:6: submit: 1h is before s.csv:5 ends (2h); valid: at least 2h, or no duration on s.csv:5",
        "s.csv:7: submit: 1h is also the submit of s.csv:6; valid: one row per time for deployment api",
    ]


def test_rows_of_one_deployment_may_not_overlap_or_disagree() -> None:
    head = "name,submit,team,kind,accelerator,chips,replicas,duration,priority\n"
    assert issues(head + "api,0,serving,deployment,l4,1,2,2h,\napi,1h,serving,deployment,l4,1,1,,\n") == [
        "s.csv:3: submit: 1h is before s.csv:2 ends (2h); valid: at least 2h, or no duration on s.csv:2"
    ]
    assert issues(head + "api,0,serving,deployment,l4,1,2,,\napi,0,serving,deployment,l4,1,1,,\n") == [
        "s.csv:3: submit: 0s is also the submit of s.csv:2; valid: one row per time for deployment api"
    ]
    assert issues(head + "api,0,serving,deployment,l4,1,2,,\napi,1h,nlp,deployment,v5e,1,1,,inference\n") == [
        "s.csv:3: team: 'nlp' differs from 'serving' (s.csv:2); valid: the same team on every row of deployment api",
        "s.csv:3: accelerator: 'v5e' differs from 'l4' (s.csv:2); valid: the same accelerator on every row of "
        "deployment api",
        "s.csv:3: priority: 'inference' differs from empty (s.csv:2); valid: the same priority on every row of "
        "deployment api",
    ]
    # a job and a deployment may not share a name, in either order
    assert issues(head + "api,0,serving,deployment,l4,1,2,,\napi,1h,nlp,job,l4,1,,1h,\n") == [
        "s.csv:3: name: 'api' is used twice; valid: a name per job (rows of one deployment share theirs)"
    ]


names = st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True)


@st.composite
def deployments(draw: st.DrawFn) -> list[TraceJob]:
    """One Deployment: distinct submit times, replica counts from 0, the shared fields drawn once."""
    name, team = draw(names), draw(names)
    accelerator = draw(st.sampled_from(["v5e", "l4"]))
    chips, priority = draw(st.none() | st.integers(1, 8)), draw(st.none() | names)
    starts = sorted(draw(st.lists(st.integers(0, 30 * 24), min_size=1, max_size=6, unique=True)))
    rows = []
    for i, start in enumerate(starts):
        room = (starts[i + 1] - start) if i + 1 < len(starts) else 48
        hours = draw(st.none() | st.integers(1, room))
        rows.append(TraceJob(name=name, submit=start * H, team=team, accelerator=accelerator,
                             duration=hours * H if hours else 0.0, chips=chips, kind="deployment",
                             priority=priority, replicas=draw(st.integers(0, 64))))  # fmt: skip
    return rows


@settings(max_examples=60, deadline=None)
@given(st.lists(deployments(), min_size=1, max_size=3, unique_by=lambda rows: rows[0].name))
def test_written_deployments_read_back_the_same(groups: list[list[TraceJob]]) -> None:
    rows = [r for g in groups for r in g]
    expected = sorted(rows, key=lambda j: (j.submit, j.name))
    assert parse_trace(to_csv(rows), "t.csv") == expected
    assert parse_trace(to_yaml(rows), "t.yaml") == expected


@settings(max_examples=60, deadline=None)
@given(deployments())
def test_each_step_is_a_row_count_or_the_zero_after_a_duration(rows: list[TraceJob]) -> None:
    steps = scale_steps(rows)
    times = [t for t, _ in steps]
    assert times == sorted(set(times))  # one count per time, in order
    for row in rows:  # each row's count holds from its submit
        assert (row.submit, row.replicas) in steps
        end = row.submit + row.duration
        if row.duration and not any(r.submit == end for r in rows):
            assert (end, 0) in steps  # ...and, with a duration, 0 from its end
    assert len(steps) == len(rows) + sum(1 for r in rows if r.duration and all(o.submit != r.submit + r.duration
                                                                               for o in rows))  # fmt: skip
