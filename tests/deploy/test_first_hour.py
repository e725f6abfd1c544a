"""The first hour outside the happy path (docs/cli.md): commands run from another folder name the
folder they looked in and how to point at the config; --json answers in JSON even when it fails; an
option a subcommand does not take shows that subcommand's usage; one spelling per option, old
spellings still accepted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gke_accel.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "single-host-v5e-training.yaml"


def test_outside_the_repository_names_the_folder_and_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GKE_ACCEL_CONFIG_DIR", raising=False)
    assert main(["workload", "new", "--env", "dev", "--team", "nlp", "--accelerator", "v5e", "--image", "i"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path.resolve() / 'config'} (config under the current folder {tmp_path}) does not exist" in err
    assert "--config-dir PATH/TO/gke-accel/config" in err and "GKE_ACCEL_CONFIG_DIR" in err
    (tmp_path / "config").mkdir()
    assert main(["validate"]) == 2
    assert "has no environment files (*.yaml)" in capsys.readouterr().err


def test_the_config_dir_variable_points_at_the_platform_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GKE_ACCEL_CONFIG_DIR", str(ROOT / "config"))
    assert main(["lint", "--env", "dev", str(EXAMPLE)]) == 0
    assert "schedules on" in capsys.readouterr().out
    # an explicit --config-dir wins over the variable
    assert main(["validate", "--config-dir", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


def test_json_failures_are_json_on_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = ["--config-dir", str(ROOT / "config")]
    assert main(["lint", "--env", "dev", *config, "--json", str(tmp_path / "missing.yaml")]) == 2
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert body["ok"] is False and body["exit_code"] == 2
    assert body["issues"][0]["path"] == str(tmp_path / "missing.yaml") and "cannot be read" in err
    with pytest.raises(SystemExit) as stop:  # argparse: the usage error, as JSON too
        main(["lint", "--json"])
    assert stop.value.code == 2
    body = json.loads(capsys.readouterr().out)
    assert body["ok"] is False and "the following arguments are required" in body["error"]
    # accepted: a run that succeeds prints its own JSON, once
    assert main(["lint", "--env", "dev", *config, "--json", str(EXAMPLE)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["ok"] is True
    # without --json, a failure prints nothing on stdout
    assert main(["lint", "--env", "dev", *config, str(tmp_path / "missing.yaml")]) == 2
    assert capsys.readouterr().out == ""


def test_an_unknown_option_shows_the_subcommands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["synth", "--bogus"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "usage: gke-accel synth" in err and "unrecognized arguments: --bogus" in err


def test_one_spelling_per_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # synth takes --config FILE as validate and cost do
    args = build_parser(["synth"]).parse_args(["synth", "--config", "config/dev.yaml"])
    assert args.config == "config/dev.yaml"
    # manifests writes to --outdir as synth, scan and review do; --out still works, unlisted
    config = ["--config-dir", str(ROOT / "config"), "--env", "dev"]
    assert main(["manifests", *config, "--outdir", str(tmp_path / "a")]) == 0
    assert main(["manifests", *config, "--out", str(tmp_path / "b")]) == 0
    assert sorted(p.name for p in (tmp_path / "a" / "dev").iterdir()) == sorted(
        p.name for p in (tmp_path / "b" / "dev").iterdir()
    )
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["manifests", "--help"])
    usage = capsys.readouterr().out
    assert "--outdir" in usage and "--out " not in usage and "--out]" not in usage
    # option mistakes are headed as such, and the accelerator list is spelled as the flag takes it
    assert main(["workload", "new", *config, "--team", "nlp", "--accelerator", "h100", "--image", "i"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("command-line error: --accelerator: 'h100'") and "valid: l4, v5e" in err
    assert len(err.strip().splitlines()) == 1, err  # one mistake, one line
    shutil.rmtree(tmp_path / "a")


def test_workload_new_help_states_the_cpu_default_that_workload_new_applies(capsys: pytest.CaptureFixture[str]) -> None:
    """N14: the help said "half the node's share"; a pod with every chip of a ct5lp-hightpu-4t gets the
    whole share less margins (docs/workloads.md: 110400m of its 112 vCPUs)."""
    with pytest.raises(SystemExit):
        main(["workload", "new", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "half the node's share" not in text
    assert "the pod's share of the node's allocatable cpu, less margins" in text
    args = ["workload", "new", "--config-dir", str(ROOT / "config"), "--env", "dev", "--team", "nlp"]
    assert main([*args, "--accelerator", "v5e", "--image", "i"]) == 0  # checkpoints mounted: the sidecar's margin too
    out = capsys.readouterr().out
    # the memory as worked out by hand in tests/workloads/test_node_fit.py (less GKE's DaemonSets and the kernel)
    assert "cpu: 110400m" in out and "memory: 179416Mi" in out
