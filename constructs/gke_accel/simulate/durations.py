"""Times in a trace or a flag: ``90m``, ``2h30m``, ``1d``, ``45s`` or a bare number of minutes
(docs/simulate.md), parsed and written back in the shortest exact form."""

from __future__ import annotations

import math
import re

_UNIT = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)d)?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$")
DURATION_HELP = "a duration like 90m, 2h30m, 1d, 45s or a number of minutes"


def parse_duration(text: str) -> float | None:
    """Seconds, or None when ``text`` is not a duration."""
    text = text.strip().lower()
    if not text:
        return None
    if len(text) > 64:
        return None
    try:
        seconds = float(text) * 60
    except ValueError:
        m = _DURATION.match(text)
        if not m or not any(m.groups()):
            return None
        seconds = sum(float(v) * s for v, s in zip(m.groups(), _UNIT.values(), strict=True) if v)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def format_duration(seconds: float) -> str:
    """The shortest exact form: ``2h30m``, ``45s``, ``1d``; fractions of a second as ``12.5s``."""
    if seconds != int(seconds):
        return f"{seconds!r}s"
    left, out = int(seconds), ""
    for unit, size in _UNIT.items():
        if left >= size:
            out += f"{left // size}{unit}"
            left %= size
    return out or "0s"
