"""The Helm releases a synthesized stack installs, rendered as Helm renders them (``helm template``,
no cluster): the Kueue and JobSet charts from their Go modules at the pinned tags, and the generated
queue chart, each with the values the stack's ``helm_release`` passes.

The OCI charts the stacks pin (``oci://registry.k8s.io/kueue/charts/kueue`` 0.17.0,
``.../jobset/charts/jobset`` 0.11.1) are packaged from ``charts/kueue`` and ``charts/jobset`` of the
same tags (Kueue's Chart.yaml: "the version and appVersion are overridden to GIT_TAG when building the
artifacts, including the helm charts"); the registry is not reachable here, the Go module proxy is.
The helm CLI comes from tools/helm/build.sh (built once into ~/.cache/gke-accel/helm). Where Go is
missing, tests skip; in CI they fail (tests/require.py).
"""

from __future__ import annotations

import functools
import json
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model.queues.install import JOBSET, KUEUE, Release
from require import build_output, require_or_skip

REPO = Path(__file__).resolve().parents[1]
HELM_BUILD = REPO / "tools" / "helm" / "build.sh"
PINNED = {KUEUE.name: KUEUE, JOBSET.name: JOBSET}


@functools.cache
def helm() -> Path:
    """The helm CLI (built on first use)."""
    try:
        out = subprocess.run([str(HELM_BUILD)], capture_output=True, text=True, check=True)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip("no helm CLI: tools/helm/build.sh failed (needs Go and the Go module proxy)",
                        output=build_output(exc))  # fmt: skip
    return Path(out.stdout.strip().splitlines()[-1])


def chart_source(release: Release) -> Path:
    """``charts/<chart>`` of the release's Go module at its tag (downloaded into the module cache)."""
    try:
        out = subprocess.run(["go", "mod", "download", "-json", f"{release.go_module}@v{release.version}"],
                             capture_output=True, text=True, check=True, cwd="/")  # fmt: skip
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip(f"{release.go_module}@v{release.version} not in the Go module cache or proxy",
                        output=build_output(exc))  # fmt: skip
    return Path(json.loads(out.stdout)["Dir"]) / "charts" / release.chart


def render(
    chart: Path, name: str, namespace: str, values: Sequence[str] = (), *, crds: bool = True
) -> list[dict[str, Any]]:
    """``helm template`` of ``chart`` with each of ``values`` (YAML documents) as a ``--values`` file."""
    args = [str(helm()), "template", name, str(chart), "--namespace", namespace, *(["--include-crds"] if crds else [])]
    with tempfile.TemporaryDirectory(prefix="gke-accel-values-") as scratch:
        for i, text in enumerate(values):
            (Path(scratch) / f"values-{i}.yaml").write_text(text)
            args += ["--values", str(Path(scratch) / f"values-{i}.yaml")]
        out = subprocess.run(args, capture_output=True, text=True, check=False)
    assert out.returncode == 0, f"helm template {name} failed:\n{out.stderr}"
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def releases(stack: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The stack's ``helm_release`` bodies by release name."""
    return {body["name"]: body for body in stack.get("resource", {}).get("helm_release", {}).values()}


def render_release(stack: Mapping[str, Any], stack_dir: Path, name: str) -> list[dict[str, Any]]:
    """One ``helm_release`` of a synthesized stack rendered with exactly the values it passes: a pinned
    chart from its module, or the generated chart (an asset next to the stack)."""
    body = releases(stack)[name]
    pinned = PINNED.get(name)
    if pinned is not None:
        pins = (body.get("repository"), body["chart"], body.get("version"))
        assert pins == (pinned.repository, pinned.chart, pinned.version), f"{name}: the stack pins {pins}"
        chart = chart_source(pinned)
    else:
        chart = stack_dir / body["chart"]
    return render(chart, name, body["namespace"], body.get("values", []))


def pod_specs(objects: Sequence[Mapping[str, Any]], kind: str = "Deployment") -> dict[str, dict[str, Any]]:
    """The pod template spec of every ``kind`` object, by name."""
    return {o["metadata"]["name"]: o["spec"]["template"]["spec"] for o in objects if o["kind"] == kind}
