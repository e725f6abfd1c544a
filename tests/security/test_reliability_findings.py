"""Issue 46: each reproduction of the reliability probe (findings E1-E15) as a test, run as a user runs
it (``gke-accel`` in a subprocess): exit 2 (or 1 where the command's contract says "cannot", 130 for
Ctrl-C), one message, no traceback, bounded wall time and peak memory, nothing left behind.
E5 (hostile API servers) is tests/workloads/test_hostile_server.py; E2/E6/E8 with real processes are
tests/twin/test_twin_ownership.py; E12/E13 are config rules (tests/observability, tests/model)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from security.reproduce import CONFIG, run

MB = 400  # peak memory of any refusal (the CLI with the model loaded is ~80 MB)
TRACE = "submit,team,accelerator,chips,duration\n0,nlp,v5e,8,1h\n"


def _simulate(trace: Path, *flags: str, timeout: float = 60) -> str:
    result = run("simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(trace), *flags,
                 timeout=timeout)  # fmt: skip
    assert result.code == 2, result.err
    assert result.seconds < 30 and result.max_rss_mb < MB, (result.seconds, result.max_rss_mb)
    return result.one_error()


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "t.csv"
    path.write_text(TRACE)
    return path


@pytest.mark.parametrize("rate", ["inf", "nan", "1e9", "-1", "1001"])
def test_e1_a_node_failure_rate_that_is_not_finite_and_bounded_is_refused_before_anything_starts(
    trace: Path, rate: str
) -> None:
    line = _simulate(trace, "--node-failures", rate)
    assert "--node-failures" in line and "is not a finite number 0 or more and at most 1000" in line


def test_e1_e15_a_failure_schedule_too_long_to_run_is_refused_with_its_count(trace: Path) -> None:
    line = _simulate(trace, "--node-failures", "1000", "--until", "366d")
    assert "--node-failures" in line and "draws about 366000 node failures" in line and "at most 10000" in line


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--days", "3650"), "--days: 3650.0 is not a finite number above 0 and at most 366"),
        # staging, 8784 h at load 0.9, jobs of 6.5 h (training) or 1.75 h (inference) per unit, worked by hand:
        # nlp v5e 16/8 2432, nlp l4 1 1216, research v5e 8/8 1216, serving v5e 8/8 4517, serving l4 4 18070
        (("--days", "366", "--load", "0.9"), "would generate about 27451 jobs; valid: at most 10000 jobs"),
        (("--load", "1000"), "--load: 1000.0 is not a finite number above 0 and at most 10"),
    ],
)
def test_e15_generated_work_is_bounded_and_counted_before_it_starts(flags: tuple[str, ...], expected: str) -> None:
    result = run("simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", *flags, "--dry-run")
    assert result.code == 2 and expected in result.one_error(), result.err
    assert result.seconds < 30 and result.max_rss_mb < MB


def _yaml_bomb(key: str) -> str:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(8):
        prev, name = chr(97 + i), chr(98 + i)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\njobs:\n  - {submit: 0, team: *i, accelerator: v5e, duration: 1h}\n" if key == "team" \
        else "\n".join(lines) + "\njobs: *i\n"  # fmt: skip


HOSTILE_TRACES = [
    ("fifo.csv", None, "is not a regular file"),
    ("zero.csv", "/dev/zero", "is not a regular file"),
    ("field.csv", "submit,team,accelerator,chips,duration\n0," + "x" * 200_000 + ",v5e,8,1h\n", "... (200000"),
    ("team-bomb.yaml", _yaml_bomb("team"), "alias bomb"),
    ("jobs-bomb.yaml", _yaml_bomb("jobs"), "alias bomb"),
    ("deep.yaml", "jobs: " + "[" * 20000 + "]" * 20000 + "\n", "nests deeper than 64 levels"),
    ("rows.csv", "submit,team,accelerator,chips,duration\n" + "0,nlp,v5e,8,1h\n" * 300_000, "4194304-byte limit"),
    ("many.csv", "submit,team,accelerator,chips,duration\n" + "0,nlp,v5e,8,1h\n" * 10_001, "more than 10000 rows"),
    ("dup.yaml", "jobs:\n  - {submit: 0, team: nlp, team: cv, accelerator: v5e, duration: 1h}\n", "repeats the key"),
    ("big.csv", "submit,team,accelerator,chips,duration\n0,nlp,v5e,8,1e308\n", "is not a duration"),
    ("long.csv", "submit,team,accelerator,chips,duration\n0,nlp,v5e,8,400d\n", "is more than 366d"),
    ("nan.yaml", "jobs:\n  - {submit: .nan, team: nlp, accelerator: v5e, duration: 1h}\n", "not a finite number"),
    ("list.yaml", "jobs:\n  - {submit: [1], team: nlp, accelerator: v5e, duration: 1h}\n", "not a single value"),
]


@pytest.mark.parametrize(("name", "content", "expected"), HOSTILE_TRACES, ids=[t[0] for t in HOSTILE_TRACES])
def test_e3_e4_a_hostile_trace_is_one_error_in_bounded_time_and_memory(
    tmp_path: Path, name: str, content: str | None, expected: str
) -> None:
    path = tmp_path / name
    if content is None:
        os.mkfifo(path)
    elif content == "/dev/zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text(content)
    line = _simulate(path, "--dry-run")
    assert line.startswith(str(path)) and expected in line, line
    assert len(line) < 1000


def test_e3_a_byte_order_mark_is_dropped_as_the_config_reader_does(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + TRACE.encode())
    result = run("simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(path), "--dry-run")
    assert result.code == 0 and result.out.strip() == f"{path}: 1 jobs, valid for staging", result.err


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--warmup", "1e308"), ("--days", "nan"), ("--days", "inf"), ("--load", "nan"), ("--load", "inf"),
     ("--quiet", "nan"), ("--compression", "nan"), ("--compression", "inf"), ("--until", "1e308")],
)  # fmt: skip
def test_e4_every_number_flag_is_finite_and_bounded(trace: Path, flag: str, value: str) -> None:
    result = run("simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(trace), flag, value,
                 "--dry-run")  # fmt: skip
    assert result.code == 2 and "Traceback" not in result.err
    assert flag in result.err and result.max_rss_mb < MB


def test_e4_save_trace_to_a_folder_is_one_error(trace: Path, tmp_path: Path) -> None:
    line = _simulate(trace, "--dry-run", "--save-trace", str(tmp_path))
    assert line.startswith("--save-trace:") and "cannot be written" in line


def test_e4_a_report_never_holds_infinity_or_nan() -> None:
    import json

    from gke_accel.simulate.report import as_json, finite

    assert finite({"a": float("inf"), "b": [float("nan"), 1.0], "c": (2.0,)}) == {"a": None, "b": [None, 1.0],
                                                                                   "c": [2.0]}  # fmt: skip

    class M:
        def as_dict(self) -> dict[str, object]:
            return {"utilization": float("nan"), "horizon_h": float("inf")}

    text = as_json(M(), {"jobs": 1})  # type: ignore[arg-type]
    assert "NaN" not in text and "Infinity" not in text and json.loads(text)["utilization"] is None


@pytest.mark.parametrize(
    ("value", "message"),
    [("'-4'", "must be greater than or equal to 0"), ("500m", "must be an integer"),
     ("'abc'", "quantities must match"), ("''", "quantities must match"), ("true", "quantities must match"),
     ("[1]", "quantities must match"), ("{a: 1}", "quantities must match"), (".nan", "quantities must match"),
     (".inf", "quantities must match")],
)  # fmt: skip
def test_e7_lint_refuses_a_gpu_quantity_the_api_server_refuses(value: str, message: str) -> None:
    job = run("workload", "new", "--env", "dev", "--config-dir", CONFIG, "--team", "nlp", "--accelerator", "l4",
              "--image", "IMG")  # fmt: skip
    assert job.code == 0 and "nvidia.com/gpu: '1'" in job.out
    bad = job.out.replace("nvidia.com/gpu: '1'", f"nvidia.com/gpu: {value}", 1)
    result = run("lint", "--env", "dev", "--config-dir", CONFIG, "-", stdin=bad.encode())
    assert result.code == 2 and "Traceback" not in result.err, result.err
    assert "[quantity] spec.template.spec.containers[0].resources.limits.nvidia.com/gpu" in result.out or \
        "[quantity] spec.template.spec.containers[0].resources.requests.nvidia.com/gpu" in result.out  # fmt: skip
    assert message in result.out


def test_e7_a_memory_quantity_of_words_is_refused(tmp_path: Path) -> None:
    job = run("workload", "new", "--env", "dev", "--config-dir", CONFIG, "--team", "nlp", "--accelerator", "l4",
              "--image", "IMG", "--memory", "16Gi")  # fmt: skip
    bad = job.out.replace("memory: 16Gi", "memory: lots", 1)
    assert bad != job.out
    result = run("lint", "--env", "dev", "--config-dir", CONFIG, "-", stdin=bad.encode())
    assert result.code == 2 and "'lots': quantities must match" in result.out


def test_e9_the_base_code_s_scratch_folder_goes_with_the_head_s(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """review imports the base revision's gke_accel beside the head's; its scratch folder (made by its
    own copy of gke_accel.scratch) is removed by the head's ``remove`` (what exit_now calls)."""
    import shutil

    from gke_accel import scratch
    from gke_accel.review.git_base import base_code

    # ``remove`` is what a process runs as it exits; this pytest process goes on, and a jsii Node kernel
    # started by an earlier test keeps its TMPDIR in the real scratch folder: remove a fresh one instead
    monkeypatch.setattr(scratch, "_DIR", [])
    monkeypatch.setattr(scratch, "_ADOPTED", [])
    head_root = scratch.scratch_root()

    base = tmp_path / "base"
    (base / "constructs" / "gke_accel").mkdir(parents=True)
    (base / "constructs" / "gke_accel" / "__init__.py").write_text("")
    shutil.copy(Path(scratch.__file__), base / "constructs" / "gke_accel" / "scratch.py")
    with base_code(base):
        import gke_accel.scratch as base_scratch

        assert base_scratch is not scratch
        made = base_scratch.scratch_root()
        assert made.is_dir()
    scratch.remove()
    assert not made.exists() and not head_root.exists()


def test_e10_a_twin_that_cannot_start_is_one_line(monkeypatch: pytest.MonkeyPatch, trace: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from gke_accel.cli import simulate_view
    from gke_accel.cli.main import main

    def fails(*_: object, **__: object) -> None:
        raise RuntimeError("local cluster failed to start: etcd exited with 1\n--- etcd.log\nmmap failed\n" * 3)

    monkeypatch.setattr(simulate_view, "simulate", fails)
    code = main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(trace)])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and err[-1] == "simulate: the twin cannot start: local cluster failed to start: etcd exited with 1"


def test_e11_init_next_to_a_fifo_does_not_wait_and_a_file_as_config_dir_is_one_error(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "config"
    shutil.copytree(CONFIG, folder)
    os.mkfifo(folder / "zz.yaml")
    result = run("init", "qa", "--project", "acme-ml-qa", "--region", "us-central1", "--config-dir", str(folder),
                 timeout=30)  # fmt: skip
    assert result.code == 0 and (folder / "qa.yaml").is_file() and "Traceback" not in result.err
    result = run("init", "qa2", "--project", "acme-ml-qa", "--region", "us-central1", "--config-dir",
                 str(folder / "dev.yaml"))  # fmt: skip
    assert result.code == 2 and "--config-dir" in result.one_error() and "is not a folder" in result.one_error()


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--name", "x\ny"), "--name: 'x\\ny' is not a lowercase RFC 1123 label"),
        (("--name", "a" * 300), "is not a lowercase RFC 1123 label of at most 63 characters"),
        (("--name", "Train"), "is not a lowercase RFC 1123 label"),
        (("--gpus", "-1"), "--gpus: -1 is not a count from 1 to 100000"),
    ],
)
def test_e14_workload_new_writes_only_what_the_api_server_accepts(flags: tuple[str, ...], expected: str) -> None:
    result = run("workload", "new", "--env", "dev", "--config-dir", CONFIG, "--team", "nlp", "--accelerator", "l4",
                 "--image", "IMG", *flags)  # fmt: skip
    assert result.code == 2 and result.out == "" and expected in result.one_error()


def test_e14_size_and_schema_edges_are_one_error(tmp_path: Path) -> None:
    result = run("size", "--params", "1e308B", "--task", "train")
    assert result.code == 2 and "--params: '1e308B' is not a parameter count" in result.one_error()
    result = run("schema", "--write", "--root", "/proc")
    assert result.code == 2 and "--root" in result.one_error() and "cannot be written" in result.one_error()


def test_e5_explain_takes_one_environment() -> None:
    result = run("explain", "x", "--env", "dev", "--env", "staging", "--config-dir", CONFIG)
    assert result.code == 2 and "--env: given 2 times (dev, staging)" in result.one_error()
