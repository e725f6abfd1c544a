"""Subprocess fallback: synthesize a base worktree with its own code in a fresh interpreter.

Usage: python _worker.py <base root> <config dir> <outdir> <result.json> [env ...]
The base has no review package, so this package is loaded under a private name.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    root, config_dir, outdir, result = (Path(a) for a in argv[:4])
    names = argv[4:] or None
    sys.path[:0] = [str(root / "constructs")]
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location(
        "_gke_accel_review", here / "__init__.py", submodule_search_locations=[str(here)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["_gke_accel_review"] = package
    spec.loader.exec_module(package)
    build = importlib.import_module("_gke_accel_review.build")
    data = build.synth_side(config_dir, outdir, names)
    result.write_text(json.dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
