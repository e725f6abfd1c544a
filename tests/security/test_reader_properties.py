"""Property-based tests of every reader behind the shared input layer (model/core/input_files.py), like
the config fuzzing (tests/model/test_config_properties.py): any bytes or any document either reads, or
fails with the reader's one error type whose every line names the file. Never any other exception.

Readers: simulate's trace (CSV and YAML), lint's manifests, the twin's state file, verify/explain's
kubeconfig."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gke_accel.model import ConfigError
from gke_accel.simulate.trace import FIELDS, parse_trace, read_trace
from gke_accel.twin.state import StateError, TwinState, read_state
from gke_accel.workloads.quantity import parse_quantity, quantity_problem
from gke_accel.workloads.verify.http import CannotCheck
from gke_accel.workloads.verify.live import read_kubeconfig

HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["1h", "90m", "1e308", "nan", "inf", "-1", "v5e", "l4", "nlp", "job", "jobset", "0", ".5"]),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=6)),
    max_leaves=30,
)
jobs = st.lists(st.dictionaries(st.sampled_from([*FIELDS, "gpus", "\ufeffsubmit"]), scalars, max_size=10), max_size=6)


def _every_line_names(err: ConfigError, source: str) -> None:
    assert err.issues
    for issue in err.issues:
        assert issue.path.startswith(source), issue.render()
        assert len(issue.render()) < 2000


def _no_non_finite(job: Any) -> None:
    for value in (job.submit, job.duration, job.checkpoint):
        assert value is None or (math.isfinite(value) and 0 <= value <= 366 * 86400)


@SETTINGS
@given(rows=st.lists(st.lists(st.text(max_size=12), max_size=12), max_size=8), header=st.booleans())
def test_any_csv_trace_reads_or_is_a_config_error_naming_the_file(rows: list[list[str]], header: bool) -> None:
    lines = ([",".join(FIELDS)] if header else []) + [",".join(r) for r in rows]
    try:
        parsed = parse_trace("\n".join(lines) + "\n", "t.csv")
    except ConfigError as err:
        _every_line_names(err, "t.csv")
    else:
        for job in parsed:
            _no_non_finite(job)


@SETTINGS
@given(data=st.one_of(documents, jobs, st.fixed_dictionaries({"jobs": jobs})))
def test_any_yaml_trace_reads_or_is_a_config_error_naming_the_file(data: Any) -> None:
    try:
        text = yaml.safe_dump(data)
    except (yaml.YAMLError, ValueError):
        return
    try:
        parsed = parse_trace(text, "t.yaml")
    except ConfigError as err:
        _every_line_names(err, "t.yaml")
    else:
        for job in parsed:
            _no_non_finite(job)


@SETTINGS
@given(raw=st.binary(max_size=300))
def test_any_bytes_as_a_trace_file(raw: bytes, tmp_path: Path) -> None:
    for name in ("t.csv", "t.yaml"):
        path = tmp_path / name
        path.write_bytes(raw)
        try:
            read_trace(path)
        except ConfigError as err:
            _every_line_names(err, str(path))


@SETTINGS
@given(data=documents, duplicate=st.booleans())
def test_any_json_as_a_twin_state_file(data: Any, duplicate: bool, tmp_path: Path) -> None:
    text = json.dumps(data)
    if duplicate and text.startswith("{") and len(text) > 2:
        text = '{"format": 1, ' + text[1:].replace("}", ', "format": 1}', 1) if text != "{}" else text
    (tmp_path / "twin.json").write_text(text)
    try:
        state = read_state(tmp_path)
    except StateError as err:
        assert str(err).startswith(str(tmp_path / "twin.json")) and "\n" not in str(err)
    else:
        assert state is None or isinstance(state, TwinState)


@SETTINGS
@given(raw=st.binary(max_size=300))
def test_any_bytes_as_a_twin_state_file(raw: bytes, tmp_path: Path) -> None:
    (tmp_path / "twin.json").write_bytes(raw)
    try:
        read_state(tmp_path)
    except StateError as err:
        assert str(tmp_path / "twin.json") in str(err) and "\n" not in str(err)


@SETTINGS
@given(data=documents)
def test_any_yaml_as_a_kubeconfig_reads_or_cannot_check_in_one_line(data: Any, tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    try:
        path.write_text(yaml.safe_dump(data))
    except (yaml.YAMLError, ValueError):
        return
    try:
        merged = read_kubeconfig([path])
    except CannotCheck as err:
        assert "\n" not in str(err) and len(str(err)) < 2000
    else:
        assert set(merged) >= {"clusters", "users", "contexts"}


@SETTINGS
@given(value=st.one_of(scalars, st.lists(scalars, max_size=2), st.dictionaries(st.text(max_size=3), scalars,
                                                                                max_size=2)))  # fmt: skip
def test_any_manifest_quantity_parses_or_has_the_api_server_s_reason(value: Any) -> None:
    number = parse_quantity(value)
    problem = quantity_problem("nvidia.com/gpu", value)
    if number is None:
        assert problem is not None and problem.startswith("quantities must match")
    else:
        assert number.is_finite()
        assert (problem is None) == (number >= 0 and number == number.to_integral_value())


@SETTINGS
@given(raw=st.binary(max_size=400))
def test_any_bytes_as_a_manifest_for_lint(raw: bytes, tmp_path: Path) -> None:
    from gke_accel.cli.lint_view import read_inputs

    path = tmp_path / "m.yaml"
    path.write_bytes(raw)
    try:
        read_inputs([str(path)])
    except ConfigError as err:
        _every_line_names(err, str(path))


@pytest.mark.parametrize("reader", ["trace", "state", "kubeconfig"])
def test_a_fifo_is_refused_at_once_by_every_reader(reader: str, tmp_path: Path) -> None:
    import os
    import time

    path = tmp_path / {"trace": "t.csv", "state": "twin.json", "kubeconfig": "kubeconfig"}[reader]
    os.mkfifo(path)
    started = time.monotonic()
    with pytest.raises((ConfigError, StateError, CannotCheck)) as info:
        {"trace": lambda: read_trace(path), "state": lambda: read_state(tmp_path),
         "kubeconfig": lambda: read_kubeconfig([path])}[reader]()  # fmt: skip
    assert time.monotonic() - started < 2
    assert "is not a regular file" in str(info.value)
