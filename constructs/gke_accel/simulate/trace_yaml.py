"""What a YAML trace says beyond its values: where each job starts (the line of every mistake) and
time fields YAML itself would misread (``1:30:00`` is the base-60 number 5400)."""

from __future__ import annotations

import re

import yaml

from gke_accel.model import ConfigIssue
from gke_accel.model.core.show import show

_BASE60 = re.compile(r"^[-+]?(?:[1-9][0-9_]*(?::[0-5]?[0-9])+|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)$")


def base60_times(text: str, source: str) -> list[ConfigIssue]:
    """A time field whose plain value YAML reads as a base-60 number: refused, as in a CSV trace."""
    issues: list[ConfigIssue] = []
    key: str | None = None  # the last key scalar, while its value may follow
    after_value = False
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AnchorToken):  # `submit: &t 1:30:00`: the value follows
                continue
            if not isinstance(token, yaml.ScalarToken):
                after_value = isinstance(token, yaml.ValueToken)
                key = key if after_value or isinstance(token, yaml.KeyToken) else None
                continue
            time_field = after_value and key in ("submit", "duration", "checkpoint")
            if time_field and token.plain and _BASE60.match(token.value):
                value = yaml.safe_load(token.value)
                issues.append(ConfigIssue(f"{source}:{token.start_mark.line + 1}: {key}",
                                          f"{show(token.value)} is a base-60 number in YAML ({value}), not a time",
                                          "a duration like 1h30m (H:MM:SS is not one)"))  # fmt: skip
            key, after_value = (None if after_value else token.value), False
    except yaml.YAMLError:  # parse_yaml has read it already
        return issues
    return issues


def item_lines(text: str) -> list[int]:
    """The line of each job of a YAML trace (a top-level list, or the list under ``jobs``); read after
    parse_yaml's guards (composing expands no alias)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if isinstance(root, yaml.MappingNode):
        root = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "jobs"), None)
    return [item.start_mark.line + 1 for item in root.value] if isinstance(root, yaml.SequenceNode) else []
