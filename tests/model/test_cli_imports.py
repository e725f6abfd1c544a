"""A model-only command imports only what it needs: `validate` loads no other command's module, no
workload or review code and no provider bindings; the catalog parses with libyaml when present and
reads exactly what the pure-Python parser reads."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import yaml

from gke_accel.catalog import _yaml

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import io, contextlib, json, sys\n"
    "from gke_accel.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    code = main(['validate', '--config-dir', sys.argv[1]])\n"
    "print(json.dumps([code, sorted(m for m in sys.modules if m.startswith(('gke_accel', 'jsii', 'kubernetes')))]))\n"
)


def test_validate_imports_no_other_command() -> None:
    env = {"PYTHONPATH": str(ROOT / "constructs"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT / "config")], capture_output=True, text=True, env=env, check=True
    )
    code, modules = json.loads(proc.stdout)
    assert code == 0
    views = [m for m in modules if m.startswith("gke_accel.cli.") and m.endswith("_view")]
    assert views == []
    assert not [m for m in modules if m.startswith(("gke_accel.workloads", "gke_accel.review", "jsii", "kubernetes"))]


def test_the_catalog_reads_the_same_with_either_parser() -> None:
    for name in ("accelerators.yaml", "prices.yaml", "zones.yaml", "sizing.yaml", "driver_installer.yaml"):
        text = resources.files("gke_accel.catalog").joinpath(name).read_text(encoding="utf-8")
        assert _yaml.safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader), name
