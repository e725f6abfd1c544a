"""One rule for everything a test needs from outside Python (a built binary, a Go module, a tool):
where it is missing, the test skips with the reason on a developer's machine, and FAILS in CI.

    from require import require_or_skip, required, build_output
    if binary is None:
        require_or_skip("kwok missing in ~/.cache/gke-accel/k8s/...: run tools/k8s/build.sh")
    except subprocess.CalledProcessError as exc:
        require_or_skip("the Kueue controller could not be built", output=build_output(exc))

CI is ``CI=true`` (what CI services set) or ``GKE_ACCEL_E2E_REQUIRED=1`` (``.ci/run`` sets it).
Every skip of the e2e tier goes through here; tests/e2e/conftest.py also turns any other skip of an
e2e test into a failure in CI, so a new ``pytest.skip`` cannot make CI green by skipping.
"""

from __future__ import annotations

import os
import subprocess
from typing import NoReturn

import pytest

TAIL_LINES = 25  # of a failed build's output, in the failure message


def required() -> bool:
    """True in CI: nothing may skip."""
    return os.environ.get("CI", "").lower() in ("true", "1") or os.environ.get("GKE_ACCEL_E2E_REQUIRED") == "1"


def why_required() -> str:
    if os.environ.get("GKE_ACCEL_E2E_REQUIRED") == "1":
        return "GKE_ACCEL_E2E_REQUIRED=1"
    return f"CI={os.environ.get('CI', '')}"


def tail(text: str, lines: int = TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def build_output(exc: BaseException) -> str:
    """The last lines a failed command printed (stderr, then stdout), for the failure message."""
    if isinstance(exc, subprocess.CalledProcessError):
        parts = [p if isinstance(p, str) else p.decode(errors="replace") for p in (exc.stdout, exc.stderr) if p]
        cmd = exc.cmd if isinstance(exc.cmd, str) else " ".join(map(str, exc.cmd))
        return f"$ {cmd}  (exit {exc.returncode})\n" + tail("\n".join(parts))
    return f"{type(exc).__name__}: {exc}"


def require_or_skip(reason: str, *, output: str = "") -> NoReturn:
    """Something the test needs is missing: skip with ``reason``, or fail in CI with ``reason`` and
    the last lines of ``output`` (e.g. the failed build's)."""
    if required():
        detail = f"\n--- last lines ---\n{tail(output)}" if output.strip() else ""
        note = f"required in CI ({why_required()}): a missing piece is a failure, not a skip"
        pytest.fail(f"{reason}\n({note}){detail}", pytrace=False)
    pytest.skip(reason)
