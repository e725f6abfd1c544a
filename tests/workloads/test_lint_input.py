"""What ``lint`` reads gets the config reader's guards (reliability finding D4): hostile files end in
one clear line and exit 2, quickly and without a traceback, instead of a MemoryError, a hang or a
RecursionError. In-process through the CLI, as a user runs it."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest

from gke_accel.cli.main import main

MAX_MANIFEST_BYTES = 8 * 1024 * 1024  # the documented cap (docs/workloads.md)

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ["--config-dir", str(ROOT / "config")]
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: ok, namespace: nlp}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: x}]
"""
# the "billion laughs" in metadata.labels: 9 levels of 9 aliases, 9**9 values once expanded
BOMB = (
    "a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
    + "kind: Job\nmetadata: {name: bomb, labels: {team: *a8}}\n"
)


def lint(path: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, float]:
    started = time.perf_counter()
    code = main(["lint", "--env", "dev", *CONFIG, path])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    return code, text, time.perf_counter() - started


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (BOMB.encode(), "expands to more than 100000 values through aliases"),
        (b"kind: Job\nmetadata: {name: x}\nspec: " + b"[" * 20_000 + b"]" * 20_000 + b"\n", "nests deeper than 64"),
        (b"kind: Job\nmetadata: {name: j\xf6b}\n", "is not UTF-8 text: byte 0xf6"),
        (b"kind: Job\nkind: Pod\nmetadata: {name: x}\n", "repeats the key 'kind' (first at line 1)"),
    ],
    ids=["alias-bomb-in-labels", "deep-nesting", "latin-1", "duplicate-key"],
)
def test_hostile_manifest_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str
) -> None:
    path = tmp_path / "job.yaml"
    path.write_bytes(content)
    code, text, seconds = lint(str(path), capsys)
    assert code == 2
    assert expected in text, text
    assert seconds < 10


def test_devices_fifos_and_big_files_are_refused_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# " + b"x" * MAX_MANIFEST_BYTES + b"\n")
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    for path, expected in (
        (fifo, "is not a regular file"),
        (zero, "is not a regular file"),
        (big, f"more than the {MAX_MANIFEST_BYTES}-byte limit for a manifest file"),
    ):
        code, text, seconds = lint(str(path), capsys)
        assert (code, seconds < 5) == (2, True), (path, text)
        assert expected in text and str(path) in text


def test_stdin_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"#" * (MAX_MANIFEST_BYTES + 10))))
    code, text, _ = lint("-", capsys)
    assert code == 2 and "<stdin>" in text and "byte limit for a manifest file" in text


def test_a_manifest_with_a_byte_order_mark_lints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "job.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + JOB.encode())
    _, text, _ = lint(str(path), capsys)
    assert "Job/ok" in text and "byte-order" not in text, text
