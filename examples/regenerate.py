"""Rewrite every example from the command in its first line (``# generated: gke-accel ...``).

Run from the repository root: ``.venv/bin/python examples/regenerate.py``. The tests fail when an
example no longer matches what its command generates."""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
from pathlib import Path

from gke_accel.cli.main import main

PREFIX = "# generated: gke-accel "


def generated(path: Path) -> tuple[list[str], str]:
    """The example's command and what it generates now (with the two header lines)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    args = shlex.split(lines[0][len(PREFIX) :])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    if code != 0:
        raise SystemExit(f"{path}: {shlex.join(args)} exited {code}")
    return args, "".join(lines[:2]) + out.getvalue()


if __name__ == "__main__":
    for example in sorted(Path(__file__).parent.glob("*.yaml")):
        example.write_text(generated(example)[1], encoding="utf-8")
        print(f"regenerated {example}", file=sys.stderr)
