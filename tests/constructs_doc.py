"""The Python examples of docs/constructs.md, as the tests run them."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "constructs.md"


def readme_example(name: str) -> str:
    text = DOC.read_text()
    match = re.search(rf"<!-- docs-example: {name} -->\s*```python\n(.*?)```", text, re.S)
    assert match, f"docs/constructs.md has no example {name!r}"
    return match.group(1)


def refused_app() -> str:
    """The documented app with the documented refused teams in place of its own."""
    code = readme_example("constructs")
    teams = readme_example("refused-teams").strip()
    replaced, count = re.subn(r"    teams=\[\n.*?\n    \],", "    " + teams.replace("\n", "\n    "), code, flags=re.S)
    assert count == 1, "the documented app has one teams=[...] list"
    return replaced
