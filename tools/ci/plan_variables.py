"""Check that every Terraform variable the synthesized stacks declare has a value for ``terraform plan``.

Usage: python tools/ci/plan_variables.py cdktf.out/stacks
Prints nothing and exits 0 when every variable without a default has a non-empty ``TF_VAR_<name>``
in the environment; otherwise prints one Markdown line per missing variable and exits 1, so the CI
plan fails by name instead of hanging on a prompt or planning with an empty value.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def required_variables(stacks_dir: Path) -> dict[str, list[str]]:
    """Variable name -> the stacks that declare it without a default."""
    needed: dict[str, list[str]] = {}
    for path in sorted(stacks_dir.glob("*/cdk.tf.json")):
        for name, body in json.loads(path.read_text(encoding="utf-8")).get("variable", {}).items():
            if "default" not in body:
                needed.setdefault(name, []).append(path.parent.name)
    return needed


def missing_variables(stacks_dir: Path, environ: dict[str, str]) -> dict[str, list[str]]:
    return {
        name: stacks for name, stacks in required_variables(stacks_dir).items() if not environ.get(f"TF_VAR_{name}")
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    missing = missing_variables(Path(argv[0]), dict(os.environ))
    for name, stacks in sorted(missing.items()):
        print(f"- variable `{name}` ({', '.join(stacks)}) has no value: set TF_VAR_{name} from a repository secret")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
