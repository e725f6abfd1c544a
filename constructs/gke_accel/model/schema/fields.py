"""What the config dataclasses say about themselves: every field's name, type, default and comment.

The source of truth for ``config/<env>.yaml`` is the frozen dataclasses under ``model/*/spec.py``
(``core/parse.py`` builds them from YAML). This module reads them, with the comments written beside
each field, so the JSON Schema and the field reference are generated from the same place and can
never disagree with the parser.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, Union

from gke_accel.model.environment.spec import EnvironmentSpec

_FIELD_LINE = re.compile(r"^\s+(\w+):[^#]*?(?:#\s*(.*))?$")
_COMMENT_LINE = re.compile(r"^\s*#\s?(.*)$")


@dataclass(frozen=True)
class FieldDoc:
    name: str
    tp: Any  # the resolved type hint
    required: bool
    default: Any  # the default value (default_factory called); dataclasses.MISSING when required
    comment: str  # the comment beside or above the field in the spec file, "" when none


@dataclass(frozen=True)
class ClassDoc:
    cls: type
    doc: str  # the class docstring, dedented ("" for none)
    fields: tuple[FieldDoc, ...]

    @property
    def name(self) -> str:
        return self.cls.__name__

    @property
    def shorthand(self) -> str | None:
        value = getattr(self.cls, "shorthand_field", None)
        return value if isinstance(value, str) else None


def plain(text: str) -> str:
    """Docstring markup as Markdown: reST double backticks become single ones."""
    return text.replace("``", "`")


def optional_inner(tp: Any) -> Any | None:
    """``X`` for ``X | None``, else None."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return inner[0] if len(inner) == 1 else None
    return None


def literal_values(tp: Any) -> tuple[Any, ...]:
    inner = optional_inner(tp)
    tp = inner if inner is not None else tp
    return typing.get_args(tp) if typing.get_origin(tp) is Literal else ()


def nested_classes(tp: Any) -> list[type]:
    """The dataclasses a type refers to (inside ``X | None``, tuples and mappings)."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return [tp]
    return [c for arg in typing.get_args(tp) for c in nested_classes(arg)]


def _comments(cls: type) -> dict[str, str]:
    """Field name -> its comment: the one on its line, else the comment lines right above it."""
    try:
        lines = inspect.getsource(cls).splitlines()
    except (OSError, TypeError):
        return {}
    found: dict[str, str] = {}
    above: list[str] = []
    names = {f.name for f in dataclasses.fields(cls)}
    for line in lines[1:]:
        comment = _COMMENT_LINE.match(line)
        if comment:
            above.append(comment.group(1).strip())
            continue
        match = _FIELD_LINE.match(line)
        if match and match.group(1) in names:
            parts = [*above, (match.group(2) or "").strip()]
            found[match.group(1)] = plain(" ".join(p for p in parts if p))
        above = []
    return found


def describe(cls: type) -> ClassDoc:
    hints = typing.get_type_hints(cls)
    comments = _comments(cls)
    fields = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        fields.append(
            FieldDoc(f.name, hints[f.name], default is dataclasses.MISSING, default, comments.get(f.name, ""))
        )
    return ClassDoc(cls, plain(inspect.cleandoc(cls.__doc__ or "")) if _own_doc(cls) else "", tuple(fields))


def _own_doc(cls: type) -> bool:
    """dataclass() writes a signature as the docstring of a class that has none."""
    return bool(cls.__doc__) and not (cls.__doc__ or "").startswith(f"{cls.__name__}(")


@functools.cache
def config_classes(root: type = EnvironmentSpec) -> tuple[ClassDoc, ...]:
    """Every config dataclass reachable from ``root``, root first, in the order fields mention them."""
    order: list[type] = []

    def walk(cls: type) -> None:
        if cls in order:
            return
        order.append(cls)
        for hint in typing.get_type_hints(cls).values():
            for nested in nested_classes(hint):
                walk(nested)

    walk(root)
    return tuple(describe(c) for c in order)
