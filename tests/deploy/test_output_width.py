"""Every line the CLI prints for the shipped configs fits 100 columns (tables wrap their cells)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gke_accel.cli.main import environment_report, main
from gke_accel.model.environment.config_files import load_environments
from gke_accel.tables import render_table

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 100


def _too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > WIDTH]


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["cost"],
        ["catalog"],
        ["catalog", "--gpu", "h100"],
        ["catalog", "--tpu", "v6e"],
    ],
)
def test_command_output_fits(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] in ("validate", "cost"):
        argv = [*argv, "--config-dir", str(ROOT / "config")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.strip() and not _too_wide(out)


def test_synth_report_fits_for_every_shipped_environment() -> None:
    for plan in load_environments(ROOT / "config"):
        text = environment_report(plan)
        assert plan.name in text and "v" in text
        assert not _too_wide(text), _too_wide(text)


def test_wide_tables_wrap_cells_and_keep_every_word() -> None:
    rows = [["pool-a", "us-central1-a, us-central1-b, us-central1-c " * 4, "x" * 60]]
    text = render_table(["name", "zones", "long"], rows, max_width=WIDTH)
    assert not _too_wide(text)
    words = " ".join(text.splitlines()[2:]).split()
    assert words.count("us-central1-a,") == 4 and "pool-a" in words
    assert render_table(["a", "b"], [["1", "2"]]) == "a  b\n-  -\n1  2"  # narrow tables are unchanged


def test_validate_fits_in_a_deep_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a checkout at a long path (CI runners, nested work folders): paths are printed relative to it
    checkout = tmp_path / ("a-rather-long-folder-name-" * 3) / ("nested-checkout-" * 3)
    shutil.copytree(ROOT / "config", checkout / "config")
    monkeypatch.chdir(checkout)
    assert main(["validate", "--config-dir", str(checkout / "config")]) == 0
    out = capsys.readouterr().out
    assert "source config/prod.yaml" in out
    assert not _too_wide(out), _too_wide(out)


def test_a_table_never_breaks_inside_a_word() -> None:
    # The newcomer's case: the cost table of dev with an H100 pool broke `ct5lp-hightpu-4t` onto two lines.
    headers = ["pool", "machine", "nodes", "on-demand min", "on-demand max", "spot min", "spot max", "accelerator"]
    rows = [
        ["v5e-dev", "ct5lp-hightpu-4t", "0-2", "$0", "$6,023.40", "$0", "$2,709.36", "tpu-v5-lite-podslice"],
        ["h100-dev", "a3-highgpu-8g", "0-1", "$0", "$64,096.13", "$0", "$22,144.20", "nvidia-h100-80gb"],
    ]
    text = render_table(headers, rows, max_width=60)
    words = " ".join(text.splitlines()).split()
    for word in ("ct5lp-hightpu-4t", "a3-highgpu-8g", "tpu-v5-lite-podslice", "nvidia-h100-80gb", "$64,096.13"):
        assert word in words, text


def test_tables_follow_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """N11: the queue table wrapped at 100 columns on a 200-column terminal, its rows cut into lines
    under the wrong headings. On a terminal the tables fit its width; piped output stays at 100."""
    import sys

    plan = next(p for p in load_environments(ROOT / "config") if p.name == "staging")
    piped = environment_report(plan)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("COLUMNS", "220")
    wide = environment_report(plan)
    assert max(map(len, wide.splitlines())) > WIDTH  # uses the room it has
    assert not [line for line in wide.splitlines() if len(line) > 220]
    assert len(wide.splitlines()) < len(piped.splitlines())  # fewer wrapped lines
    header = next(line for line in wide.splitlines() if line.startswith("team ") and "preempts to borrow" in line)
    assert "preempts to borrow" in header  # the heading on one line, not split over two
    monkeypatch.setenv("COLUMNS", "80")
    narrow = environment_report(plan)
    assert not [line for line in narrow.splitlines() if len(line) > 80 and " " in line.strip()]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert environment_report(plan) == piped  # not a terminal: 100 columns whatever COLUMNS says
