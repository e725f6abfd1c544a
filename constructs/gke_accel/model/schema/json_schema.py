"""A JSON Schema (draft-07) of ``config/<env>.yaml``, generated from the config dataclasses.

It states what ``core/parse.py`` accepts, type by type (unknown keys are refused, integers are
32-bit, text is one line of at most 1,024 characters), so an editor with a YAML language server
(``# yaml-language-server: $schema=...`` in the file) offers completion, hover text and inline
errors. Rules that need the catalog or several fields (topologies, zones, quotas) stay with
``gke-accel validate``.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any, Literal

from gke_accel.model.core.parse import INT_MAX, INT_MIN, MAX_TEXT
from gke_accel.model.schema.fields import ClassDoc, FieldDoc, config_classes, optional_inner

SCHEMA_PATH = "schema/gke-accel-config.schema.json"  # committed, relative to the repository root
SCHEMA_ID = "https://gke-accel.invalid/schema/gke-accel-config.schema.json"  # a name, not a download


# Any text value: one line (no control characters), at most MAX_TEXT characters (core/parse.py).
TEXT = {
    "type": "string",
    "maxLength": MAX_TEXT,
    "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$",
    "description": f"text on one line, at most {MAX_TEXT} characters",
}


def type_schema(tp: Any) -> dict[str, Any]:
    inner = optional_inner(tp)
    if inner is not None:
        return {"anyOf": [type_schema(inner), {"type": "null"}]}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Literal:
        return {"enum": list(args)}
    if origin is tuple:
        return {"type": "array", "items": type_schema(args[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": type_schema(args[1])}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return {"$ref": f"#/definitions/{tp.__name__}"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer", "minimum": INT_MIN, "maximum": INT_MAX}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"$ref": "#/definitions/text"}
    raise TypeError(f"no JSON Schema for {tp!r}")


def json_default(value: Any) -> Any:
    """The default as JSON, or dataclasses.MISSING when it has no plain form (a nested object)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple | list):
        return [json_default(v) for v in value] if not any(dataclasses.is_dataclass(v) for v in value) else []
    if isinstance(value, dict):
        return {k: json_default(v) for k, v in value.items()}
    return dataclasses.MISSING


def field_schema(field: FieldDoc) -> dict[str, Any]:
    out = type_schema(field.tp)
    if field.comment:
        out = {"description": field.comment, **out}
    if not field.required:
        default = json_default(field.default)
        if default is not dataclasses.MISSING:
            out["default"] = default
    return out


def class_schema(doc: ClassDoc) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "type": "object",
        "properties": {f.name: field_schema(f) for f in doc.fields},
        "additionalProperties": False,
    }
    required = [f.name for f in doc.fields if f.required]
    if required:
        obj["required"] = required
    if doc.shorthand:  # a plain string means {shorthand: value}
        short = next(f for f in doc.fields if f.name == doc.shorthand)
        obj = {"anyOf": [type_schema(short.tp), obj]}
    return {"title": doc.name, **({"description": doc.doc} if doc.doc else {}), **obj}


def config_schema() -> dict[str, Any]:
    classes = config_classes()
    root = class_schema(classes[0])
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        **root,
        "title": "gke-accel environment config (config/<env>.yaml)",
        "definitions": {"text": TEXT, **{c.name: class_schema(c) for c in classes[1:]}},
    }


def schema_text() -> str:
    """The committed file's exact text."""
    return json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n"
