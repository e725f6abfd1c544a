"""`gke-accel init ENV` writes a config that `validate` accepts on the first run, next to the shipped
environments, without reusing their names; mistakes in the flags are reported together."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from gke_accel.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schema" / "gke-accel-config.schema.json").read_text())


@pytest.fixture()
def config_dir(tmp_path: Path) -> Path:
    # the shipped three by name: `gke-accel init qa` (the README's example) may have added config/qa.yaml
    (tmp_path / "config").mkdir()
    for name in ("dev", "staging", "prod"):
        shutil.copy(ROOT / "config" / f"{name}.yaml", tmp_path / "config" / f"{name}.yaml")
    return tmp_path / "config"


CASES = [
    ("qa", "acme-ml-qa", "us-central1", ["l4", "v5e"]),
    ("research", "acme-research", "us-east5", ["v6e", "h100"]),
    ("infer", "acme-ml-prod", "us-central1", ["t4", "v5p"]),
    ("bare", "acme-ml-bare", "europe-west4", []),
]


@pytest.mark.parametrize(("env", "project", "region", "accelerators"), CASES, ids=[c[0] for c in CASES])
def test_the_written_config_validates_with_the_shipped_ones(
    config_dir: Path, env: str, project: str, region: str, accelerators: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [a for acc in accelerators for a in ("--accelerator", acc)]
    args = ["init", env, "--project", project, "--region", region, "--config-dir", str(config_dir), *flags]
    assert main(args) == 0, capsys.readouterr().err
    written = config_dir / f"{env}.yaml"
    data = yaml.safe_load(written.read_text())
    assert (data["environment"], data["project_id"], data["region"]) == (env, project, region)
    pools = data.get("tpu_pools", []) + data.get("gpu_pools", [])
    assert len(pools) == len(accelerators)
    assert all(p["consumption"] == "spot" for p in pools)
    assert list(jsonschema.Draft7Validator(SCHEMA).iter_errors(data)) == []
    capsys.readouterr()
    assert main(["validate", "--config-dir", str(config_dir)]) == 0, capsys.readouterr().err
    assert f"ok  {env}: {len(accelerators)} accelerator pool(s)" in capsys.readouterr().out


def test_an_existing_environment_is_refused_and_left_alone(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (config_dir / "dev.yaml").read_text()
    code = main(["init", "dev", "--project", "acme-ml-dev", "--region", "us-central1", "--config-dir", str(config_dir)])
    assert code == 2
    assert "ENV: 'dev' exists already" in capsys.readouterr().err
    assert (config_dir / "dev.yaml").read_text() == before


def test_the_cluster_name_of_another_environment_of_the_project_is_not_reused(config_dir: Path) -> None:
    (config_dir / "qa.yaml").write_text(
        (config_dir / "dev.yaml")
        .read_text()
        .replace("environment: dev", "environment: qa2")
        .replace("name: ml-dev", "name: ml-qa")
    )
    (config_dir / "qa.yaml").rename(config_dir / "qa2.yaml")
    assert (
        main(["init", "qa", "--project", "acme-ml-dev", "--region", "us-central1", "--config-dir", str(config_dir)])
        == 0
    )
    assert yaml.safe_load((config_dir / "qa.yaml").read_text())["cluster"]["name"] == "ml-qa-2"
    assert (
        main(["init", "qa3", "--project", "acme-other", "--region", "us-central1", "--config-dir", str(config_dir)])
        == 0
    )
    assert yaml.safe_load((config_dir / "qa3.yaml").read_text())["cluster"]["name"] == "ml-qa3"


def test_every_bad_flag_is_reported_at_once_and_nothing_is_written(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["init", "Bad_Name", "--project", "x", "--region", "mars-1", "--config-dir", str(config_dir)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "3 command-line errors" in err and "ENV:" in err and "--project:" in err and "--region:" in err
    args = ["init", "qa", "--project", "acme-ml-qa", "--region", "us-central1", "--config-dir", str(config_dir)]
    assert main([*args, "--accelerator", "a1000", "--accelerator", "v4"]) == 2
    err = capsys.readouterr().err
    assert "'a1000' is not a TPU generation or GPU model" in err
    assert "'v4': no zone of us-central1 offers it" in err and "us-central2" in err  # v4: us-central2-b only
    assert not (config_dir / "qa.yaml").exists()
