"""Plain-text tables and prose for the terminal, fitted to its width (100 columns when the output is
not a terminal: a pipe, a file, CI logs).

A table wider than ``MAX_WIDTH`` wraps the text of its roomiest columns (headers included) onto
more lines, at spaces only: a word (a machine type, a zone) is never broken, so it stays copyable;
a table whose words cannot fit stays wider. Long prose lines wrap with their indentation kept.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence

MAX_WIDTH = 100
MIN_WIDTH = 60  # narrower terminals still get 60-column lines (wrapping below that helps nobody)


def _on_terminal() -> bool:
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError):
        return False


def output_width() -> int:
    """The terminal's columns (``COLUMNS`` wins, as for every Unix tool) when stdout is a terminal;
    ``MAX_WIDTH`` otherwise, so piped and logged output does not depend on who ran it."""
    if not _on_terminal():
        return MAX_WIDTH
    return max(MIN_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns)
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
    """A table. On a terminal it fits the terminal's width (``max_width`` None or ``MAX_WIDTH``) or
    ``max_width``: a wider one wraps the cells of its roomiest columns, so its columns stay under their
    headings. Piped, a table without ``max_width`` is as wide as its cells (for tools that parse it)."""
    cells = [[str(c) for c in row] for row in rows]
    if max_width is None and not _on_terminal():  # piped or logged: as wide as its cells
        widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
        out = [title] if title else []
    else:
        # MAX_WIDTH, as the views pass it, means "the default width": the terminal's when there is one
        limit = output_width() if max_width in (None, MAX_WIDTH) else max_width
        widths = _fit_widths(headers, cells, limit)
        out = [fit_text(title, limit)] if title else []
    out += _lines(headers, widths)
    out.append("  ".join("-" * w for w in widths))
    for row in cells:
        out += _lines(row, widths)
    return "\n".join(out)


def fit_text(text: str, max_width: int | None = None) -> str:
    """Wrap every line longer than ``max_width`` (default: ``output_width()``); continuation lines are
    indented 4 more spaces."""
    max_width = output_width() if max_width in (None, MAX_WIDTH) else max_width
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
