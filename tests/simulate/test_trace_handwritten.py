"""Traces as a user writes them by hand (tests/fixtures/traces/), through ``gke-accel simulate --dry-run``
against staging: YAML with comments, anchors and mixed units; a CSV with a byte-order mark, CRLF line
ends, spaces around values and header names, columns in another order; mistakes in the rows, and jobs
staging can never run. Each expected value is read off the fixture by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gke_accel.cli.main import main
from gke_accel.model import ConfigError
from gke_accel.simulate.trace import TraceJob, parse_trace, read_trace

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "config")
TRACES = ROOT / "tests" / "fixtures" / "traces"
H = 3600.0


def dry_run(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(path), "--dry-run"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out.out + out.err


def test_a_yaml_trace_with_comments_anchors_and_mixed_units(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACES / "user-week.yaml"
    assert dry_run(path, capsys) == (0, f"{path}: 5 jobs, valid for staging\n")
    train = {"team": "nlp", "accelerator": "v5e", "chips": 8, "checkpoint": 30 * 60.0}  # the &train anchor
    assert read_trace(path) == [  # by submit time, then name
        TraceJob("nlp-pretrain-1", 0.0, duration=2.5 * H, **train),  # type: ignore[arg-type]
        TraceJob("nlp-pretrain-2", 0.0, duration=150 * 60.0, **train),  # type: ignore[arg-type]  # 150 = minutes
        TraceJob("serve-l4", 45.0, "serving", "l4", 24 * H, chips=1, priority="inference"),
        TraceJob("nlp-two-slice", H, duration=1.5 * H, slices=2, kind="jobset", **train),  # type: ignore[arg-type]
        # the fifth item has no name: j0005; 1d2h = 26 h; 3600s = 1 h; its checkpoint (2 h) is past its end
        TraceJob("j0005", 26 * H, "research", "v5e", H, chips=8, priority="batch", checkpoint=2 * H),
    ]


def test_a_csv_with_a_bom_crlf_spaces_and_its_own_column_order(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACES / "gpu-bom-crlf.csv"
    assert path.read_bytes().startswith(b"\xef\xbb\xbfname ,") and b"\r\n" in path.read_bytes()
    assert dry_run(path, capsys) == (0, f"{path}: 3 jobs, valid for staging\n")
    assert read_trace(path) == [
        TraceJob("gpu-a", 5 * H, "serving", "l4", 2 * H, chips=1, checkpoint=2 * H),  # checkpoint = duration
        TraceJob("gpu-b", 5 * H, "nlp", "l4", 0.5 * H, chips=1),
        TraceJob("gpu-c", 5 * H, "serving", "l4", H, chips=1, checkpoint=H),  # submit 300 = minutes
    ]


def test_a_header_still_names_only_trace_fields_once_each() -> None:
    with pytest.raises(ConfigError) as err:
        parse_trace("submit, team ,tema,accelerator,duration, team\n0,nlp,x,v5e,1h,nlp\n", "t.csv")
    assert [(i.path, i.message, i.valid) for i in err.value.issues] == [
        ("t.csv:1: tema", "is not a trace field", "submit, team, kind, accelerator, chips, slices, duration, "
         "priority, checkpoint, replicas, name"),
        ("t.csv:1: team", "names 2 columns", "one column per field"),
    ]  # fmt: skip


def test_a_spreadsheets_empty_rows_are_skipped_a_partly_filled_one_is_not() -> None:
    # gpu-bom-crlf.csv ends in two such rows (`,,,,,,` and ` , ,,,,,`): its 3 jobs above
    text = "submit,team,accelerator,duration\n0,nlp,v5e,1h\n,,,\n,nlp,,\n"
    with pytest.raises(ConfigError) as err:
        parse_trace(text, "t.csv")
    assert {i.path for i in err.value.issues} == {"t.csv:4: submit", "t.csv:4: accelerator", "t.csv:4: duration"}


def test_every_mistake_of_the_rows_at_once_with_line_field_and_value(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACES / "row-mistakes.csv"
    code, out = dry_run(path, capsys)
    assert code == 2
    assert out.splitlines()[1:] == [
        # the docs: a name is a DNS label: Upper-Name is refused, not lowercased behind the user's back
        f"  - {path}:2: name: 'Upper-Name' is not a lowercase DNS label of at most 40 characters; "
        "valid: e.g. nlp-pretrain-3",
        f"  - {path}:3: submit: '1:30:00' is not a duration; valid: a duration like 90m, 2h30m, 1d, 45s or a "
        "number of minutes",
        f"  - {path}:4: chips: 'eight' is not a whole number from 1 to 100000; valid: 1, 2, 4, 8, ...",
        f"  - {path}:5: duration: '0' is zero; valid: more than 0",
    ]  # line 6 (fine) is not named


def test_jobs_staging_can_never_run_are_named_with_what_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACES / "cannot-run.csv"
    code, out = dry_run(path, capsys)
    named = set(re.findall(r": job ([-a-z0-9A-Z]+): ", out))
    assert code == 2 and out.startswith("8 config errors:")
    assert named == {
        "more-than-a-slice",  # 64 chips: staging's v5e slices are 2x4 (8 chips)
        "more-than-research-may-hold",  # 4 slices = 32 chips; research: nominal 8 + borrowing limit 16 = 24
        "more-slices-than-staging",  # 5 slices; staging has 4
        "multislice-as-job",  # a 2-VM slice needs a JobSet
        "upper-team",  # NLP: team names are case-sensitive
        "upper-accelerator",  # V5E
        "class-research-lacks",  # research's classes: training, batch
        "two-gpus-a-pod",  # the L4 pools have 1 GPU a node
    }
    # accepted: research has no L4 share, but lists every flavor at nominal 0 and may borrow (docs/queues.md);
    # serving may borrow the whole cohort's 32 chips (no borrowing limit)
    assert "research-borrows-l4" not in out and "serving-all-four-slices" not in out
    assert "job more-than-research-may-hold: chips: needs 32 v5e at once; team research may use 24" in out


def test_yaml_base_60_numbers_in_a_time_field_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACES / "sexagesimal.yaml"
    code, out = dry_run(path, capsys)
    assert code == 2
    assert out.splitlines()[1:] == [
        # unquoted, YAML 1.1 reads 1:30:00 as 5400 (which was 5400 minutes, 90 hours, before)
        f"  - {path}:3: submit: '1:30:00' is a base-60 number in YAML (5400), not a time; valid: a duration "
        "like 1h30m (H:MM:SS is not one)",
        f"  - {path}:8: duration: '2:00' is a base-60 number in YAML (120), not a time; valid: a duration like "
        "1h30m (H:MM:SS is not one)",
        # quoted, or 0:30 (not a YAML number: it starts with 0), it is a string, refused as in a CSV
        f"  - {path}:2: jobs[0]: submit: '1:30:00' is not a duration; valid: a duration like 90m, 2h30m, 1d, 45s "
        "or a number of minutes",
        f"  - {path}:4: jobs[2]: checkpoint: '0:30' is not a duration; valid: a duration like 90m, 2h30m, 1d, 45s "
        "or a number of minutes",
    ]


ROW = {"submit": "90m", "team": "nlp", "accelerator": "v5e", "chips": "8", "duration": "2h", "name": "a"}
SPACE = st.text(alphabet=" \t", max_size=3)


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(list(ROW)), pads=st.lists(st.tuples(SPACE, SPACE), min_size=6, max_size=6),
       crlf=st.booleans(), bom=st.booleans())  # fmt: skip
def test_any_column_order_spaces_and_line_ends_read_the_same_job(
    order: list[str], pads: list[tuple[str, str]], crlf: bool, bom: bool
) -> None:
    end = "\r\n" if crlf else "\n"
    header = ",".join(f"{a}{k}{b}" for k, (a, b) in zip(order, pads, strict=True))
    row = ",".join(f"{b}{ROW[k]}{a}" for k, (a, b) in zip(order, pads, strict=True))
    text = ("\ufeff" if bom else "") + header + end + row + end
    assert parse_trace(text.removeprefix("\ufeff"), "t.csv") == [TraceJob("a", 5400.0, "nlp", "v5e", 7200.0, 8)]


@settings(max_examples=80, deadline=None)
@given(field=st.sampled_from(["submit", "duration", "checkpoint"]), h=st.integers(1, 99),
       parts=st.lists(st.integers(0, 59), min_size=1, max_size=2), quoted=st.booleans())  # fmt: skip
def test_a_colon_time_is_never_read_as_a_number_of_minutes(field: str, h: int, parts: list[int], quoted: bool) -> None:
    value = ":".join([str(h), *(f"{p:02d}" for p in parts)])
    row = {"submit": "0", "team": "nlp", "accelerator": "v5e", "chips": "8", "duration": "1h", "name": "a"}
    row[field] = f"'{value}'" if quoted else value
    text = "- {" + ", ".join(f"{k}: {v}" for k, v in row.items()) + "}\n"
    with pytest.raises(ConfigError) as err:
        parse_trace(text, "t.yaml")
    (issue,) = err.value.issues
    shown = "is a base-60 number in YAML" if not quoted else "is not a duration"
    assert field in str(issue) and shown in str(issue), str(issue)
    # the same value where no time belongs (a name) is no base-60 complaint
    row[field], row["name"] = "1h", value
    with pytest.raises(ConfigError) as err:
        parse_trace("- {" + ", ".join(f"{k}: {v}" for k, v in row.items()) + "}\n", "t.yaml")
    assert "base-60" not in str(err.value) and "name:" in str(err.value)
