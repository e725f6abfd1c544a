"""Build the frozen config dataclasses from plain data (parsed YAML), collecting every issue.

Supported field types: ``str``, ``int``, ``float``, ``bool``, ``Literal[...]``, ``X | None``,
``tuple[X, ...]``, ``dict[str, X]`` and nested dataclasses. Unknown keys are rejected with a
"did you mean" suggestion. A dataclass with a ``shorthand_field`` class attribute also accepts a
plain string, read as ``{shorthand_field: value}``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import difflib
import functools
import math
import re
import types
import typing
from dataclasses import replace
from typing import Any, Literal, TypeVar, Union, cast

from gke_accel.model.core.errors import ConfigIssue, bad_value
from gke_accel.model.core.misplaced import misplaced_hint
from gke_accel.model.core.show import show

T = TypeVar("T")
_MISSING = object()
INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # the APIs' 32-bit integer fields
MAX_TEXT = 1024  # characters in any text value
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def text_problem(value: str) -> str | None:
    """Why a text value cannot be config text (it ends up in resource names and labels), or None."""
    if len(value) > MAX_TEXT:
        return f"is longer than {MAX_TEXT} characters"
    bad = _CONTROL.search(value)
    if bad:
        return f"contains a control character ({bad.group()!r} at position {bad.start()})"
    return None


# Lenient parsing (``parse_lenient``): a field that does not convert keeps its default, so the rules
# still check the rest; the paths of those fields are collected here.
_REPLACED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("_REPLACED", default=None)


class _Invalid(Exception):
    """Internal: a value could not be converted; the issue is already recorded."""


@functools.cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in typing.get_args(tp))
    if origin in (tuple, list):
        return "a list"
    if origin is dict:
        return "a mapping"
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    return {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}.get(tp, str(tp))


def suggest(word: str, choices: list[str]) -> str:
    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"did you mean {match[0]!r}? " if match else ""


def _fits(tp: Any, value: Any) -> bool:
    try:
        _convert(tp, value, "", [])
    except _Invalid:
        return False
    return True


def suggest_field(key: str, value: Any, hints: dict[str, Any], given: Any) -> str:
    """The field an unknown key most likely meant, among the fields not set yet: first those whose
    type takes the value (``gpus: 8`` is ``gpus_per_node``, not the text field ``gpu``), by spelling
    or as a field that starts with the key; then any field by spelling."""
    free = [f for f in hints if f not in given]
    fitting = [f for f in free if _fits(hints[f], value)]
    match = difflib.get_close_matches(key, fitting, n=1, cutoff=0.6)
    match = match or [f for f in fitting if f.startswith(key) or key.startswith(f)][:1]
    match = match or difflib.get_close_matches(key, free, n=1, cutoff=0.6)
    return f"did you mean {match[0]!r}? " if match else ""


def _convert(tp: Any, value: Any, path: str, issues: list[ConfigIssue]) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if value is None:
            return None
        return _convert(inner[0], value, path, issues)
    if origin is Literal:
        if isinstance(value, str | int) and not isinstance(value, bool) and value in args:
            return value
        issues.append(bad_value(path, value, "is not a valid choice", [str(a) for a in args]))
        raise _Invalid
    if origin is tuple:
        if not isinstance(value, list):
            issues.append(bad_value(path, value, f"should be {_type_name(tp)}"))
            raise _Invalid
        items, failed = [], False
        for i, item in enumerate(value):
            try:
                items.append(_convert(args[0], item, f"{path}[{i}]", issues))
            except _Invalid:
                failed = True
        if failed:
            raise _Invalid
        return tuple(items)
    if origin is dict:
        if not isinstance(value, dict):
            issues.append(bad_value(path, value, "should be a mapping"))
            raise _Invalid
        out, failed = {}, False
        for key, item in value.items():
            if not isinstance(key, str) or text_problem(key):
                issues.append(bad_value(path, key, "is not a valid key: keys must be plain text"))
                failed = True
                continue
            try:
                out[key] = _convert(args[1], item, f"{path}.{key[:60] or repr(key)}", issues)
            except _Invalid:
                failed = True
        if failed:
            raise _Invalid
        return out
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _build(tp, value, path, issues)
    if tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            if INT_MIN <= value <= INT_MAX:
                return value
            issues.append(bad_value(path, value, "is out of range", f"a whole number from {INT_MIN} to {INT_MAX}"))
            raise _Invalid
    elif tp is float:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53:
            return float(value)
        if isinstance(value, float) and math.isfinite(value):
            return value
    elif tp is str and isinstance(value, str):
        problem = text_problem(value)
        if problem is None:
            return value
        issues.append(bad_value(path, value, problem, "plain text on one line"))
        raise _Invalid
    issues.append(bad_value(path, value, f"should be {_type_name(tp)}"))
    raise _Invalid


def _build(cls: type[T], value: Any, path: str, issues: list[ConfigIssue]) -> T:
    shorthand = getattr(cls, "shorthand_field", None)
    if shorthand and isinstance(value, str):
        # the key the user wrote (consumption: spott), not the field the shorthand fills (consumption.type)
        before = len(issues)
        try:
            return _build(cls, {shorthand: value}, path, issues)
        finally:
            inner = _join(path, shorthand)
            issues[before:] = [replace(i, path=path) if i.path == inner else i for i in issues[before:]]
    if not isinstance(value, dict):
        issues.append(bad_value(path or "(top level)", value, "should be a mapping"))
        raise _Invalid
    fields = {f.name: f for f in dataclasses.fields(cast(Any, cls))}
    hints = _hints(cast(Any, cls))
    field_hints = {name: hints[name] for name in fields}
    kwargs: dict[str, Any] = {}
    failed = False
    for key in value:
        # An unknown key is reported, but the known fields are still checked and the object built:
        # one typo must not hide the file's other mistakes (the caller sees the issue and fails).
        if not isinstance(key, str) or key not in fields:
            hint = (
                (misplaced_hint(key, list(fields)) or suggest_field(key[:100], value[key], field_hints, value))
                if isinstance(key, str)
                else ""
            )
            issues.append(
                ConfigIssue(
                    _join(path, key[:60] if isinstance(key, str) and key else show(key)),
                    f"unknown key; {hint}".rstrip("; ").rstrip(),
                    ", ".join(fields),
                )
            )
    for name, fld in fields.items():
        raw = value.get(name, _MISSING)
        required = fld.default is dataclasses.MISSING and fld.default_factory is dataclasses.MISSING
        if raw is _MISSING:
            if required:
                issues.append(ConfigIssue(_join(path, name), f"is required ({_type_name(hints[name])})"))
                failed = True
            continue
        try:
            kwargs[name] = _convert(hints[name], raw, _join(path, name), issues)
        except _Invalid:
            replaced = _REPLACED.get()
            if replaced is not None and not required:
                replaced.append(_join(path, name))  # reported; its default stands in for the rules
                continue
            failed = True
    if failed:
        raise _Invalid
    return cls(**kwargs)


def parse_dataclass(cls: type[T], data: Any, path: str = "") -> tuple[T | None, list[ConfigIssue]]:
    """Convert ``data`` into ``cls``; return the object (or None) and every issue found. Unknown keys
    are issues but do not stop the object from being built: a caller must check ``issues`` too."""
    issues: list[ConfigIssue] = []
    try:
        return _build(cls, data, path, issues), issues
    except _Invalid:
        return None, issues


def parse_lenient(cls: type[T], data: Any, path: str = "") -> tuple[T | None, list[ConfigIssue], list[str]]:
    """As ``parse_dataclass``, but a field with a default that does not convert is reported and left at
    its default, so the rules can still check everything else (all mistakes at once). Returns the
    object (None when a required field is missing or wrong), every issue, and the paths of the fields
    left at their default: a rule's finding about one of them is a follow-on (``derived_from``)."""
    replaced: list[str] = []
    token = _REPLACED.set(replaced)
    try:
        spec, issues = parse_dataclass(cls, data, path)
    finally:
        _REPLACED.reset(token)
    return spec, issues, replaced


def derived_from(issue: ConfigIssue, replaced: list[str]) -> bool:
    """Whether ``issue`` (from a rule) is about a field ``parse_lenient`` left at its default: at or
    under its path, or in the same object and naming the field (``min_nodes ... max_nodes (1)``)."""
    for path in replaced:
        if issue.path == path or issue.path.startswith((f"{path}.", f"{path}[")):
            return True
        owner, _, name = path.rpartition(".")
        if (not owner or issue.path.startswith(owner)) and name and name in f"{issue.path} {issue.message}":
            return True
    return False
