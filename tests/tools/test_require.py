"""Skip here, fail in CI: tests/require.py and the guard in tests/e2e/conftest.py, run as pytest runs
them (a scratch copy of the e2e tier's conftest with a few tests that skip in each way there is)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
TIER = '''
import pytest
from require import require_or_skip

def test_helper():
    require_or_skip("kwok missing in /cache/k8s/bin", output="step 1\\nstep 2\\ngo: build failed: exit 1")

def test_plain_skip():
    pytest.skip("no terraform command")

@pytest.mark.skipif(True, reason="marker says so")
def test_marker():
    pass

def test_passes():
    pass
'''


def run_tier(tmp_path: Path, env_extra: dict[str, str], tests: str = TIER) -> subprocess.CompletedProcess[str]:
    shutil.copy(TESTS / "e2e" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_tier.py").write_text(tests)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GKE_ACCEL_E2E_REQUIRED")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(TESTS / "e2e"), env.get("PYTHONPATH", "")])
    env.update(env_extra)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-o", "markers=e2e", "-m", "e2e"]
    cmd.append(str(tmp_path))
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)


def test_on_a_developers_machine_missing_pieces_skip(tmp_path: Path) -> None:
    proc = run_tier(tmp_path, {})
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 3 skipped" in proc.stdout
    assert "kwok missing in /cache/k8s/bin" in proc.stdout


@pytest.mark.parametrize("ci", [{"GKE_ACCEL_E2E_REQUIRED": "1"}, {"CI": "true"}])
def test_in_ci_every_skip_is_a_failure_naming_what_is_missing(tmp_path: Path, ci: dict[str, str]) -> None:
    proc = run_tier(tmp_path, ci)
    assert proc.returncode == 1, proc.stdout
    assert "2 failed, 1 passed, 1 error in" in proc.stdout  # a skipif marker skips in setup: an error
    # the helper: the reason and the build's last lines
    assert "kwok missing in /cache/k8s/bin" in proc.stdout
    assert "go: build failed: exit 1" in proc.stdout
    # a plain pytest.skip, a skipif marker: failures with their reason
    assert "which the e2e tier does not allow: no terraform command" in proc.stdout
    assert "which the e2e tier does not allow: marker says so" in proc.stdout
    assert "skipped" not in proc.stdout.splitlines()[-1]


def test_in_ci_a_module_that_skips_at_import_is_a_collection_error(tmp_path: Path) -> None:
    module = 'import pytest\npytest.importorskip("no_such_module_here")\n\ndef test_x():\n    pass\n'
    assert "1 skipped in" in run_tier(tmp_path, {}, module).stdout
    proc = run_tier(tmp_path, {"GKE_ACCEL_E2E_REQUIRED": "1"}, module)
    assert proc.returncode == 2, proc.stdout  # pytest: interrupted by a collection error
    assert "which the e2e tier does not allow: could not import 'no_such_module_here'" in proc.stdout


def test_ci_false_is_not_ci(tmp_path: Path) -> None:
    assert run_tier(tmp_path, {"CI": "false", "GKE_ACCEL_E2E_REQUIRED": "0"}).returncode == 0
