"""YAML for the catalog's own files: libyaml's C parser when PyYAML has it (parsing the catalog with
the pure-Python parser was most of `gke-accel validate`'s time), the same safe constructors."""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    return yaml.load(text, Loader=_LOADER)  # CSafeLoader or SafeLoader: safe constructors only
