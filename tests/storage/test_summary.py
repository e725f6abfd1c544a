"""What ``synth`` prints about checkpoints and restarts (cli/cost_view.synth_section)."""

from __future__ import annotations

from pathlib import Path

import yaml

from gke_accel.cli.cost_view import synth_section
from gke_accel.model import load_environment_text

CONFIG = Path(__file__).resolve().parents[2] / "config"


def _dev(**changes: object) -> str:
    data = yaml.safe_load((CONFIG / "dev.yaml").read_text())
    data.update(changes)
    return " ".join(synth_section(load_environment_text(yaml.safe_dump(data))).split())


def test_synth_shows_the_bucket_and_the_restart_choice() -> None:
    text = _dev()
    assert (
        "checkpoints: bucket acme-ml-dev-dev-checkpoints (US-CENTRAL1, hierarchical namespace, soft delete 7 d" in text
    )
    assert (
        "restart: image streaming on accelerator pools; Artifact Registry "
        "us-central1-docker.pkg.dev/acme-ml-dev/training" in text
    )


def test_synth_shows_image_streaming_off_and_preloads() -> None:
    text = _dev(restart={"image_streaming": False, "registry": {"create": False}})
    assert "image streaming off (full pulls)" in text and "no Artifact Registry repository created" in text
    text = _dev(restart={"preload": [{"pool": "v5e-dev", "disk_image": "global/images/train-1"}]})
    assert "v5e-dev preloads global/images/train-1" in text
