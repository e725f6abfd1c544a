"""``size``'s checkpoint report, with values computed by hand from published numbers.

70B parameters, AdamW, bf16 (catalog/sizing.yaml: 2 bytes per bf16 weight, AdamW 12 bytes per
parameter with the fp32 master copy): 70e9 x 14 = 980e9 bytes = 912.7 GiB. At 10 GB/s: 98 s.
A 72 h run (259200 s) with one interruption: interval sqrt(98 x 259200) = 5040 s = 84 min, lost share
2 sqrt(98 / 259200) = 3.89% (Young 1974, first-order optimum)."""

from __future__ import annotations

import json

import pytest

from gke_accel.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out if code == 0 else captured.out + captured.err


def test_checkpoint_size_write_time_and_interval(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(
        capsys, "size", "--params", "70B", "--task", "train", "--checkpoint-gbps", "10", "--run-hours", "72", "--json"
    )
    assert code == 0
    cp = json.loads(out)["checkpoint"]
    assert cp["size_gib"] == pytest.approx(980e9 / 2**30, abs=0.01)
    assert cp["write_seconds"] == pytest.approx(98.0, abs=0.1)
    assert cp["interval_seconds"] == pytest.approx(5040.0, abs=0.1)
    assert cp["lost_share"] == pytest.approx(0.0389, abs=0.0001)
    assert cp["within_budget"] is True


def test_a_slow_write_is_over_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    # 980e9 B at 0.5 GB/s = 1960 s; a 24 h run (86400 s), 4 interruptions: 2 sqrt(4 x 1960 / 86400) = 60.2%
    code, out = run(
        capsys,
        "size",
        "--params",
        "70B",
        "--task",
        "train",
        "--checkpoint-gbps",
        "0.5",
        "--interruptions",
        "4",
        "--json",
    )
    assert code == 0
    cp = json.loads(out)["checkpoint"]
    assert cp["lost_share"] == pytest.approx(0.6025, abs=0.0005)
    assert cp["within_budget"] is False


def test_text_report_and_no_throughput(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(
        capsys, "size", "--params", "70B", "--task", "train", "--checkpoint-gbps", "10", "--run-hours", "72"
    )
    assert "checkpoint: 912.7 GiB" in out and "checkpoint every 84.0 min" in out and "within the 5% budget" in out
    code, out = run(capsys, "size", "--params", "7B", "--task", "train")
    assert code == 0 and "give --checkpoint-gbps" in out
    code, out = run(capsys, "size", "--params", "7B", "--task", "serve")
    assert "checkpoint:" not in out


def test_bad_budget_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "size", "--params", "7B", "--task", "train", "--lost-budget", "5")
    assert code != 0
    assert "--lost-budget" in out and "between 0 and 1" in out
