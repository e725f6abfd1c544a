"""Helm charts that gke-accel generates from model objects (the queue objects, the team fences),
shipped to Terraform as directory assets, written in the process's scratch folder (gke_accel/scratch.py,
removed when the process ends)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gke_accel.cdk._framework import AssetType, Construct, TerraformAsset
from gke_accel.cdk._helm import HelmProvider, Release
from gke_accel.scratch import scratch_dir as _scratch


def scratch_dir() -> Path:
    """The process's folder for generated charts (removed when the process ends)."""
    return _scratch("charts")


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


@dataclass(frozen=True)
class GeneratedChart:
    """A generated chart's Helm release: its name, what it holds, the namespace Helm keeps it in, and
    ``stem``, the construct ids of its asset (``<stem>-chart``) and release (``<stem>``)."""

    release: str
    stem: str
    description: str
    namespace: str


def chart_release(
    scope: Construct, chart: GeneratedChart, manifests: Sequence[dict[str, Any]], provider: HelmProvider, after: Any
) -> Release:
    """``manifests`` as ``chart`` under ``scope``: atomic, waiting up to 600 s, after ``after`` (resources)."""
    path = write_chart(chart.release, chart.stem, chart.description, manifests, scratch_dir())
    asset = TerraformAsset(scope, f"{chart.stem}-chart", path=str(path), type=AssetType.DIRECTORY)
    return Release(
        scope, chart.stem, provider=provider, name=chart.release, namespace=chart.namespace, chart=asset.path,
        atomic=True, wait=True, timeout=600, depends_on=list(after),
    )  # fmt: skip
