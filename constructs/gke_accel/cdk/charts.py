"""Helm charts that gke-accel generates from model objects (the queue objects, the team fences),
shipped to Terraform as directory assets: one scratch folder per process, removed at exit."""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

_TMP: list[str] = []


def scratch_dir() -> Path:
    """The process's folder for generated charts (created once, removed at exit)."""
    if not _TMP:
        _TMP.append(tempfile.mkdtemp(prefix="gke-accel-charts-"))
        atexit.register(shutil.rmtree, _TMP[0], True)
    return Path(_TMP[0])


def write_chart(name: str, stem: str, description: str, objects: Sequence[dict[str, Any]], where: Path) -> Path:
    """A chart ``name`` holding ``objects`` in ``templates/<stem>.yaml``, in ``where/<stem>-<digest>``;
    its version is derived from the objects, so a change of them is a change of the release."""
    body = "".join("---\n" + yaml.safe_dump(o, sort_keys=False) for o in objects)
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    chart = where / f"{stem}-{digest}"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    meta = {"apiVersion": "v2", "name": name, "description": description, "type": "application"}
    (chart / "Chart.yaml").write_text(yaml.safe_dump({**meta, "version": f"0.0.0-{digest}"}, sort_keys=False))
    (chart / "templates" / f"{stem}.yaml").write_text(body)
    return chart
