"""The CLI's model-only commands: validate and catalog. Exit codes, messages, no provider import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gke_accel.cli.main import main
from helpers import base_config, set_path, to_yaml

ROOT = Path(__file__).resolve().parents[2]


def test_validate_passes_on_the_shipped_configs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--config-dir", str(ROOT / "config")]) == 0
    out = capsys.readouterr().out
    assert "ok  dev" in out and "ok  prod" in out and "ok  staging" in out


def test_validate_lists_every_error_with_file_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = set_path(base_config(), "tpu_pools[0].topology", "3x3")
    data = set_path(data, "gpu_pools[0].gpus_per_node", 3)
    data = set_path(data, "cluster.relase_channel", "STABLE")
    path = tmp_path / "test.yaml"
    path.write_text(to_yaml(data))
    assert main(["validate", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: cluster.relase_channel: unknown key; did you mean 'release_channel'?" in err
    assert "Traceback" not in err


def test_validate_reports_rule_errors_after_the_file_parses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = set_path(base_config(), "tpu_pools[0].topology", "3x3")
    data = set_path(data, "gpu_pools[0].gpus_per_node", 3)
    path = tmp_path / "test.yaml"
    path.write_text(to_yaml(data))
    assert main(["validate", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "2 config errors" in err
    assert "tpu_pools[0].topology: '3x3' is not valid for v5e; valid: 1x1, 2x2, 2x4" in err
    assert "gpu_pools[0].gpus_per_node: 3 is not valid for nvidia-l4; valid: 1, 2, 4, 8" in err


def test_validate_unknown_environment_and_bad_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a copy of the shipped configs: `gke-accel init qa` (the README's example) may have added qa.yaml to config/
    shipped = tmp_path / "config"
    shipped.mkdir()
    for name in ("dev", "staging", "prod"):
        (shipped / f"{name}.yaml").write_text((ROOT / "config" / f"{name}.yaml").read_text())
    assert main(["validate", "--config-dir", str(shipped), "--env", "qa"]) == 2
    assert "'qa' has no config file" in capsys.readouterr().err
    (tmp_path / "x.yaml").write_text("cluster: [unclosed\n")
    assert main(["validate", "--config", str(tmp_path / "x.yaml")]) == 2
    assert "is not valid YAML" in capsys.readouterr().err


def test_validate_does_not_load_jsii_or_the_provider_bindings() -> None:
    code = (
        "import sys; from gke_accel.cli.main import main; rc = main(['validate', '--config-dir', 'config']); "
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('jsii', 'cdktf', 'constructs', "
        "'cdktf_cdktf_provider_google')]; print('LOADED', loaded); sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "LOADED []" in proc.stdout


def test_catalog_filters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--tpu", "v5e"]) == 0
    out = capsys.readouterr().out
    assert "tpu-v5-lite-podslice" in out and "tpu-v6e-slice" not in out and "GPU machine" not in out
    assert main(["catalog", "--gpu", "h100"]) == 0
    out = capsys.readouterr().out
    assert "a3-highgpu-8g" in out and "g2-standard-4" not in out and "(verify)" in out
    assert main(["catalog", "--gpu", "h900"]) == 2
    assert "valid:" in capsys.readouterr().err
