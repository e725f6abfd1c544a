"""Plain-text tables and prose for the terminal, fitted to 100 columns.

A table wider than ``MAX_WIDTH`` wraps the text of its roomiest columns (headers included) onto
more lines, at spaces only: a word (a machine type, a zone) is never broken, so it stays copyable;
a table whose words cannot fit stays wider. Long prose lines wrap with their indentation kept.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

MAX_WIDTH = 100
_GAP = 2


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def _fit_widths(headers: Sequence[str], cells: list[list[str]], max_width: int) -> list[int]:
    widths = [len(h) for h in headers]
    floors = [_longest_word(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
        floors = [max(f, _longest_word(c)) for f, c in zip(floors, row, strict=True)]
    floors[0] = widths[0]  # the first column names the row: never wrapped
    excess = sum(widths) + _GAP * (len(widths) - 1) - max_width
    while excess > 0:
        slack = [w - f for w, f in zip(widths, floors, strict=True)]
        i = max(range(len(widths)), key=lambda k: slack[k])
        if slack[i] <= 0:
            break  # every column is down to its longest word
        widths[i] -= 1  # always the roomiest column: columns shrink evenly
        excess -= 1
    return widths


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


def _lines(values: Sequence[str], widths: list[int]) -> list[str]:
    wrapped = [_wrap(v, w) for v, w in zip(values, widths, strict=True)]
    height = max(len(lines) for lines in wrapped)
    return [
        "  ".join(
            (lines[n] if n < len(lines) else "").ljust(w) for lines, w in zip(wrapped, widths, strict=True)
        ).rstrip()
        for n in range(height)
    ]


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "", max_width: int | None = None
) -> str:
    """A table; with ``max_width`` (e.g. ``MAX_WIDTH``) wider tables wrap their cells to fit."""
    cells = [[str(c) for c in row] for row in rows]
    if max_width is None:
        widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    else:
        widths = _fit_widths(headers, cells, max_width)
    out = [fit_text(title, max_width) if max_width else title] if title else []
    out += _lines(headers, widths)
    out.append("  ".join("-" * w for w in widths))
    for row in cells:
        out += _lines(row, widths)
    return "\n".join(out)


def fit_text(text: str, max_width: int = MAX_WIDTH) -> str:
    """Wrap every line longer than ``max_width``; continuation lines are indented 4 more spaces."""
    out: list[str] = []
    for line in text.splitlines():
        if len(line) <= max_width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(
            line.strip(),
            max_width,
            initial_indent=indent,
            subsequent_indent=indent + "    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return "\n".join(out)
