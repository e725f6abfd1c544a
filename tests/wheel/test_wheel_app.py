"""The documented construct app (docs/constructs.md) from the built wheel, installed into a fresh
virtual environment outside the repository, run from a folder outside it: it synthesizes a cluster, a
TPU pool, a GPU pool and teams with quotas; the documented refused teams end with exit status 2 and
every field named, no traceback.

The ``wheel`` tier (``make test-wheel``, ``.ci/run``), not ``make test``: it builds and installs.
The pinned dependencies (pyproject's ``dependencies``, no gke-accel in it) are installed once per pin
set into ``~/.cache/gke-accel/wheel-deps/<hash>`` with pip (its cache and find-links are reused); each
run makes a fresh venv that sees them through a ``.pth`` file and installs the wheel into it with pip,
which checks the wheel's declared dependencies against them. Nothing of the repository is importable
there: the test checks where ``gke_accel`` comes from.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

from constructs_doc import readme_example, refused_app

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("GKE_ACCEL_CACHE", Path.home() / ".cache" / "gke-accel")) / "wheel-deps"


def _run(cmd: list[str], cwd: Path, timeout: float = 900, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def _site_packages(venv: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return venv / "lib" / version / "site-packages"


def _dependencies_venv() -> Path:
    """The pinned dependencies alone, installed once per pin set (under a lock: parallel runs wait)."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    key = hashlib.sha256("\n".join([sys.version, *deps]).encode()).hexdigest()[:16]
    venv = CACHE / key
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            shutil.rmtree(venv, ignore_errors=True)
            base = sysconfig.get_config_var("BINDIR") or str(Path(sys.base_prefix) / "bin")
            python = Path(base) / f"python{sys.version_info.major}.{sys.version_info.minor}"
            _run([str(python if python.exists() else sys.executable), "-m", "venv", str(venv)], CACHE)
            _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *deps], CACHE, timeout=1800)
            (venv / ".complete").write_text("\n".join(deps) + "\n")
    return venv


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the repository with the wheel built from it installed; returns its python."""
    work = tmp_path_factory.mktemp("wheel")
    assert ROOT not in work.parents
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work / "dist"), str(ROOT)], work)
    wheel = next((work / "dist").glob("gke_accel-*.whl"))
    deps = _dependencies_venv()
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], work)
    # the pinned dependencies, seen through a .pth (pip counts them as installed: no download)
    (_site_packages(venv) / "gke-accel-pinned-deps.pth").write_text(f"{_site_packages(deps)}\n")
    pip = [str(deps / "bin" / "python"), "-m", "pip", "--python", str(venv / "bin" / "python")]
    _run([*pip, "install", "--quiet", str(wheel)], work)
    return venv / "bin" / "python"


def test_gke_accel_comes_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    code = "import gke_accel, gke_accel.model as m; print(gke_accel.__file__); print(m.TeamSpec.__name__)"
    out = _run([str(installed), "-c", code], tmp_path).stdout.split()
    assert Path(out[0]).is_relative_to(installed.parent.parent) and out[1] == "TeamSpec"
    version = _run([str(installed.parent / "gke-accel"), "--version"], tmp_path).stdout
    assert version.startswith("gke-accel ")


def test_documented_app_synthesizes_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(readme_example("constructs"))
    _run([str(installed), "app.py"], tmp_path)
    doc = json.loads((tmp_path / "cdktf.out" / "stacks" / "research" / "cdk.tf.json").read_text())
    quotas = {q["metadata"]["namespace"] for q in doc["resource"]["kubernetes_resource_quota_v1"].values()}
    pools = {p["name"] for p in doc["resource"]["google_container_node_pool"].values()}
    assert {"vision", "serving"} <= quotas and {"system", "l4"} <= pools


def test_documented_refused_team_exits_2_naming_the_fields(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(refused_app())
    result = _run([str(installed), "app.py"], tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    assert "teams[1].accelerators.h100: 16 is a quota for nvidia-h100-80gb" in result.stderr
    assert "teams[0].accelerators: ['l4'] should be a mapping" in result.stderr
    assert "Traceback" not in result.stderr and "AttributeError" not in result.stderr
