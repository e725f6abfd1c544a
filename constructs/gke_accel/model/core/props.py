"""Props given to constructs in Python get the same checks as YAML: the dataclass is turned back
into plain data and parsed by the same parser, so a wrong type, an invalid choice (a release channel
that does not exist) or a shorthand (``consumption="spot"``) behaves exactly as in a config file.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from gke_accel.model.core.errors import ConfigError, ConfigIssue, IssueCollector, bad_value
from gke_accel.model.core.parse import derived_from, parse_dataclass, parse_lenient

T = TypeVar("T")


def as_data(value: Any) -> Any:
    """A dataclass (or anything inside one) as the plain data YAML would have produced."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [as_data(v) for v in value]
    if isinstance(value, dict):
        return {k: as_data(v) for k, v in value.items()}
    return value


def validated_props(cls: type[T], value: Any, path: str) -> T:
    """``value`` checked and normalized as ``cls`` (shorthands expanded); ConfigError listing every
    problem, with paths under ``path``, otherwise."""
    if not isinstance(value, cls):
        raise ConfigError([_wrong_type(cls, value, path)])
    spec, issues = parse_dataclass(cls, as_data(value), path)
    if spec is None or issues:
        raise ConfigError(issues)
    return spec


def lenient_props(cls: type[T], value: Any, path: str) -> tuple[T, list[ConfigIssue], list[str]]:
    """As ``validated_props``, but a field that does not parse is reported and left at its default, so
    the construct's rules still check the rest (all mistakes at once): the spec, the parse issues and
    the paths left at their default (see ``drop_derived``). ConfigError when it cannot be built at all."""
    if not isinstance(value, cls):
        raise ConfigError([_wrong_type(cls, value, path)])
    spec, issues, replaced = parse_lenient(cls, as_data(value), path)
    if spec is None:
        raise ConfigError(issues)
    return spec, issues, replaced


def drop_derived(issues: IssueCollector, start: int, replaced: list[str]) -> None:
    """Leave out the rule findings (from index ``start``) about fields ``lenient_props`` defaulted."""
    if replaced:
        issues.issues[start:] = [i for i in issues.issues[start:] if not derived_from(i, replaced)]


def normalized(cls: type[T], value: Any, path: str, issues: IssueCollector) -> T | None:
    """``value`` re-parsed as ``cls`` (``consumption="spot"`` becomes a ConsumptionSpec, a list where a
    mapping belongs is an issue), or None with every problem added to ``issues``: what the model's
    planning functions run first, so a spec built in Python fails as a config error, never an
    AttributeError deep inside a rule."""
    if not isinstance(value, cls):
        issues.add(_wrong_type(cls, value, path))
        return None
    spec, found = parse_dataclass(cls, as_data(value), path)
    for issue in found:
        issues.add(issue)
    return None if found else spec


def _wrong_type(cls: type, value: Any, path: str) -> ConfigIssue:
    return bad_value(path or "spec", type(value).__name__, f"should be a {cls.__name__}")
