#!/usr/bin/env python3
"""Print the requirements of an environment that runs gke-accel on one framework only.

    python tools/frameworks/requirements.py cdktf [dev ...]

The package's own dependencies without the default framework's (cdktn) distributions, plus the
named extras (the framework's extra and e.g. dev). Used by `make test-other-framework` with
`pip install --no-deps -e .`, so that environment holds cdktf and not both frameworks.
"""

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def requirements(extras: list[str]) -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    optional = project["optional-dependencies"]
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise SystemExit(f"unknown extra {unknown[0]!r}; valid: {', '.join(optional)}")
    name = lambda req: re.split(r"[\s=<>!~\[;]", req, maxsplit=1)[0].lower()  # noqa: E731
    default_framework = {name(r) for r in project["dependencies"] if name(r).startswith("cdktn")}
    base = [r for r in project["dependencies"] if name(r) not in default_framework]
    return base + [r for extra in extras for r in optional[extra]]


if __name__ == "__main__":
    print("\n".join(requirements(sys.argv[1:])))
