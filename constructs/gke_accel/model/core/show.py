"""Show a config value in an error message the way the user wrote it (YAML flow style), cut to a
bounded size *before* it is rendered, so a megabyte string or a huge list costs nothing."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_TEXT = 60  # characters of a string shown
MAX_ITEMS = 6  # list items or mapping entries shown
MAX_DEPTH = 3  # nesting shown

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"}


def _text(value: str) -> str:
    cut = value[:MAX_TEXT]
    more = f"... ({len(value)} characters)" if len(value) > MAX_TEXT else ""
    if cut.isprintable():
        return "'" + cut.replace("'", "''") + "'" + more
    return json.dumps(cut) + more  # control characters, newlines: YAML double-quoted escapes


def _key(value: Any) -> str:
    if isinstance(value, str) and _PLAIN_KEY.fullmatch(value[:MAX_TEXT]) and value.lower() not in _RESERVED:
        return value[:MAX_TEXT] + ("..." if len(value) > MAX_TEXT else "")
    return _render(value, MAX_DEPTH)


def _render(value: Any, depth: int) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        digits = len(str(abs(value))) if abs(value) < 10**MAX_TEXT else None
        return str(value) if digits is not None else f"(a {value.bit_length()}-bit number)"
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else (".nan" if value != value else ".inf")
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list | tuple):
        if depth <= 0:
            return f"[... {len(value)} items]"
        items = [_render(v, depth - 1) for v in list(value[:MAX_ITEMS])]
        if len(value) > MAX_ITEMS:
            items.append(f"... {len(value) - MAX_ITEMS} more")
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        if depth <= 0:
            return f"{{... {len(value)} entries}}"
        entries = []
        for i, (k, v) in enumerate(value.items()):
            if i == MAX_ITEMS:
                entries.append(f"... {len(value) - MAX_ITEMS} more")
                break
            entries.append(f"{_key(k)}: {_render(v, depth - 1)}")
        return "{" + ", ".join(entries) + "}"
    return _text(str(value)[: MAX_TEXT + 1])


def show(value: Any) -> str:
    """A short YAML rendering of ``value``: strings quoted, lists and mappings in flow style."""
    return _render(value, MAX_DEPTH)
