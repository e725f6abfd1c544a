"""Every file a command reads, through one set of guards: configs (``yaml_input``), ``lint``/``explain``
manifests, ``simulate`` traces, the twin's state file and kubeconfigs.

The guards are the config reader's (``yaml_input``): a regular file only (a directory, FIFO, device or
socket is refused before it is opened for reading, so nothing waits on a writer), a byte cap per kind of
file, UTF-8 with a leading byte-order mark dropped, YAML without duplicate keys, alias bombs, recursive
anchors or deep nesting. This module adds what the other formats need, on the same rules: JSON without
duplicate keys, non-finite numbers or deep nesting; CSV with a row cap and fields bounded by the byte
cap; and a finite, bounded number check. Every problem is a ConfigError naming the file (exit 2, one
line per issue, never a traceback).
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from gke_accel.model.core.errors import ConfigError, ConfigIssue
from gke_accel.model.core.show import show
from gke_accel.model.core.yaml_input import (
    MAX_DEPTH,
    MAX_VALUES,
    ConfigInputError,
    decode_config,
    parse_config_text,
    read_config_bytes,
)

# Byte caps per kind of file (each far above a real one; each bounds time and memory of one read)
MAX_TRACE_BYTES = 4 * 1024 * 1024  # 10,000 jobs of ~100 bytes a row is 1 MB
MAX_TRACE_JOBS = 10_000  # a simulated week of staging is ~200 jobs; the twin submits them one by one
MAX_STATE_BYTES = 256 * 1024  # twin.json is ~2 KB
MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024  # kubeconfigs with embedded certificates of many clusters


def input_issues(err: ConfigInputError, shown: str) -> list[ConfigIssue]:
    """The reader's issues with the file named in each (``(file)`` becomes the file itself)."""
    return [ConfigIssue(shown if i.path == "(file)" else f"{shown} {i.path}", i.message, i.valid) for i in err.issues]


def read_text(path: Path, *, limit: int, what: str, shown: str | None = None) -> str:
    """The file's text (UTF-8, no BOM) with every guard; a ConfigError naming ``shown`` (default: the path)."""
    try:
        return decode_config(read_config_bytes(path, limit, what))
    except ConfigInputError as err:
        raise ConfigError(input_issues(err, shown or str(path))) from None


def parse_yaml(text: str, shown: str, *, max_values: int = MAX_VALUES) -> Any:
    """One YAML document with the config reader's guards (``max_values`` after alias expansion)."""
    try:
        return parse_config_text(text, max_values=max_values)
    except ConfigInputError as err:
        raise ConfigError(input_issues(err, shown)) from None


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _json_depth(text: str) -> int:
    """Deepest ``[``/``{`` nesting outside strings (checked before parsing: the decoder recurses)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json(text: str, shown: str) -> Any:
    """JSON without duplicate keys, NaN/Infinity or nesting deeper than MAX_DEPTH; ConfigError otherwise."""
    if _json_depth(text) > MAX_DEPTH:
        raise ConfigError([ConfigIssue(shown, f"nests deeper than {MAX_DEPTH} levels")])
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except _Duplicate as exc:
        raise ConfigError([ConfigIssue(shown, f"repeats the key {show(str(exc))}", "unique keys")]) from None
    except json.JSONDecodeError as exc:
        raise ConfigError([ConfigIssue(shown, f"is not JSON ({exc.msg} at line {exc.lineno})")]) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError([ConfigIssue(shown, f"is not valid JSON: {str(exc)[:200]}")]) from None


def csv_rows(text: str, shown: str, *, max_rows: int) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """The header and the rows (with their line numbers) of a CSV text: at most ``max_rows`` rows, any
    field up to the whole text (the byte cap already bounds it); a malformed file is one ConfigError."""
    csv.field_size_limit(max(len(text), 131072))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        header = [str(h) for h in reader.fieldnames or []]
        for row in reader:
            if len(rows) >= max_rows:
                raise ConfigError([ConfigIssue(shown, f"has more than {max_rows} rows", f"at most {max_rows}")])
            rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise ConfigError([ConfigIssue(f"{shown}:{reader.line_num}", f"is not valid CSV: {str(exc)[:200]}")]) from None
    return header, rows


def finite_in(value: float, low: float, high: float, *, low_open: bool = False) -> bool:
    """A finite number within [low, high] (or (low, high] with ``low_open``)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return False
    return (value > low if low_open else value >= low) and value <= high
