"""Config errors: every mistake names the field, the bad value and what would be valid."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gke_accel.model.core.show import show

MAX_SHOWN = 50  # issues printed; the count says how many there are


def _show(value: Any) -> str:
    return show(value)


@dataclass(frozen=True)
class ConfigIssue:
    """One mistake in a config: where it is, what it is, and what would be valid."""

    path: str
    message: str
    valid: str = ""

    def render(self, source: str = "") -> str:
        where = f"{source}: " if source else ""
        tail = f"; valid: {self.valid}" if self.valid else ""
        return f"{where}{self.path}: {self.message}{tail}"


def bad_value(path: str, value: Any, what: str = "is not valid", valid: Iterable[Any] | str = "") -> ConfigIssue:
    """An issue for a value that is not allowed, with the allowed values listed."""
    valid_text = valid if isinstance(valid, str) else ", ".join(str(v) for v in valid)
    return ConfigIssue(path, f"{_show(value)} {what}", valid_text)


class ConfigError(ValueError):
    """Raised for any config mistake; carries every issue found, not only the first."""

    def __init__(self, issues: Iterable[ConfigIssue], source: str = "") -> None:
        self.issues: tuple[ConfigIssue, ...] = tuple(issues)
        self.source = source
        super().__init__(self.render())

    def render(self, limit: int = MAX_SHOWN) -> str:
        """Every issue up to ``limit``, then how many more (a file of 40,000 typos is not 9 MB of text)."""
        count = len(self.issues)
        lines = [issue.render(self.source) for issue in self.issues[:limit]]
        if count > limit:
            lines.append(f"... and {count - limit} more (the first {limit} are shown)")
        head = f"{count} config error{'s' if count != 1 else ''}"
        return head + ":\n" + "\n".join(f"  - {line}" for line in lines)


@dataclass
class IssueCollector:
    """Collects issues while a rule set runs, then raises them all together."""

    issues: list[ConfigIssue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # accepted, but worth a look (printed by validate)

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(f"{path}: {message}")

    def add(self, issue: ConfigIssue) -> None:
        self.issues.append(issue)

    def bad(self, path: str, value: Any, what: str = "is not valid", valid: Iterable[Any] | str = "") -> None:
        self.add(bad_value(path, value, what, valid))

    def raise_if_any(self, source: str = "") -> None:
        if self.issues:
            raise ConfigError(self.issues, source)
