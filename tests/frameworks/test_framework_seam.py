"""The framework seam: one place imports cdktn/cdktf and the provider bindings; the choice is made
by GKE_ACCEL_FRAMEWORK or by what is installed, and a bad choice is a message, not a traceback."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gke_accel import frameworks
from gke_accel.frameworks import CDKTF, CDKTN, ENV_VAR, FrameworkError, choose

ROOT = Path(__file__).resolve().parents[2]
SEAM = {
    ROOT / "constructs/gke_accel/cdk/_framework.py",
    ROOT / "constructs/gke_accel/cdk/_providers.py",
    ROOT / "constructs/gke_accel/cdk/_kubernetes.py",
    ROOT / "constructs/gke_accel/cdk/_helm.py",
    ROOT / "constructs/gke_accel/cdk/_jsii_child.py",  # jsii's node child ends with Python (D13)
}
FRAMEWORK_MODULES = {m for f in frameworks.FRAMEWORKS.values() for m in (f.core, f.google, f.kubernetes, f.helm)}
FRAMEWORK_MODULES |= {"constructs", "jsii"}
DYNAMIC = {"import_module", "__import__"}
SCANNED = ("constructs", "stacks", "tests", "benchmarks", "tools")


def framework_imports(path: Path, root: Path = ROOT) -> list[str]:
    """`import X` / `from X import ...` statements in ``path`` that name a framework or binding module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in DYNAMIC:
            names = [a.value for a in node.args[:1] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        found += [f"{path.relative_to(root)}:{node.lineno}: {n}" for n in names if n.split(".")[0] in FRAMEWORK_MODULES]
    return found


def test_only_the_seam_files_import_a_framework_or_provider_bindings() -> None:
    files = [p for d in SCANNED for p in (ROOT / d).rglob("*.py") if ".venv" not in p.parts]
    assert len(files) > 50
    stray = [hit for p in files if p not in SEAM for hit in framework_imports(p)]
    assert stray == []
    assert all(framework_imports(p) for p in SEAM)


def test_the_scan_finds_a_stray_import(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(
        "import importlib, os\nfrom cdktf_cdktf_provider_google.provider import GoogleProvider\n"
        "k = importlib.import_module('cdktn_provider_kubernetes.provider')\nimportlib.import_module('json')\n"
    )
    assert framework_imports(sneaky, tmp_path) == [
        "sneaky.py:2: cdktf_cdktf_provider_google.provider",
        "sneaky.py:3: cdktn_provider_kubernetes.provider",
    ]


def test_an_explicit_choice_wins_over_the_installed_default() -> None:
    assert choose({ENV_VAR: "cdktn"}) is CDKTN if CDKTN.installed() else True
    if CDKTF.installed():
        assert choose({ENV_VAR: "cdktf"}) is CDKTF


def test_without_a_choice_the_first_installed_framework_is_used() -> None:
    expected = CDKTN if CDKTN.installed() else CDKTF
    assert choose({}) is expected


def test_an_unknown_framework_is_rejected_naming_the_setting_and_the_valid_values() -> None:
    with pytest.raises(
        FrameworkError, match=r"GKE_ACCEL_FRAMEWORK: 'terraform' is not a framework; valid: cdktn, cdktf"
    ):
        choose({ENV_VAR: "terraform"})


def test_a_framework_that_is_not_installed_is_rejected_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = replace(CDKTF, core="gke_accel_no_such_module")
    monkeypatch.setitem(frameworks.FRAMEWORKS, "cdktf", missing)
    with pytest.raises(
        FrameworkError, match=r"'cdktf' is not installed; install it with `pip install 'gke-accel\[cdktf\]'`"
    ):
        choose({ENV_VAR: "cdktf"})


def test_with_no_framework_installed_the_error_says_how_to_install_one(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, framework in list(frameworks.FRAMEWORKS.items()):
        monkeypatch.setitem(frameworks.FRAMEWORKS, name, replace(framework, core="gke_accel_no_such_module"))
    with pytest.raises(FrameworkError, match=r"no CDK framework installed; install cdktn with `pip install gke-accel`"):
        choose({})


def test_synth_with_a_bad_choice_exits_1_with_a_message_and_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, ENV_VAR: "cdk8s"}
    proc = subprocess.run(
        [sys.executable, "-m", "gke_accel.cli.main", "synth", "--env", "dev", "--outdir", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "gke-accel: GKE_ACCEL_FRAMEWORK: 'cdk8s' is not a framework; valid: cdktn, cdktf"
