"""``docs/config-reference.md``: every field of ``config/<env>.yaml`` with its type, default and valid
values, generated from the config dataclasses (the same source as the JSON Schema)."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from typing import Any, Literal

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec
from gke_accel.model.schema.fields import ClassDoc, FieldDoc, config_classes, literal_values, optional_inner
from gke_accel.model.schema.json_schema import SCHEMA_PATH, json_default

REFERENCE_PATH = "docs/config-reference.md"

# Valid values that come from the catalog rather than the type (the schema leaves them to `validate`).
CATALOG_VALUES: dict[tuple[type, str], Callable[[Catalog], list[str]]] = {
    (TpuPoolSpec, "generation"): lambda c: list(c.tpu_generations),
    (GpuPoolSpec, "gpu"): lambda c: list(c.gpu_names()),
}

# One pool entry per consumption option (`gpu_pools:` of the shipped dev config's shape). A test loads
# each of them, so they stay valid. Queued and flex-start pools need `queues:` in the environment.
CONSUMPTION_EXAMPLES: dict[str, str] = {
    "on-demand": "- {name: l4, gpu: l4, gpus_per_node: 1, max_nodes: 2}            # consumption: on-demand",
    "spot": "- {name: l4, gpu: l4, gpus_per_node: 1, max_nodes: 2, consumption: spot}",
    "reservation (a named one)": (
        "- name: h100\n  gpu: h100\n  gpus_per_node: 8\n  node_count: 2\n"
        "  consumption: {type: reservation, affinity: specific, reservation: my-h100-reservation}"
    ),
    "reservation (any matching)": (
        "- {name: l4, gpu: l4, gpus_per_node: 1, max_nodes: 2, consumption: {type: reservation, affinity: any}}"
    ),
    "queued (needs `queues:`)": "- {name: l4, gpu: l4, gpus_per_node: 1, max_nodes: 2, consumption: queued}",
    "flex-start (needs `queues:`)": (
        "- name: l4\n  gpu: l4\n  gpus_per_node: 1\n  max_nodes: 2\n"
        "  consumption: {type: flex-start, max_run_duration_seconds: 86400}"
    ),
}


def type_text(tp: Any) -> str:
    inner = optional_inner(tp)
    if inner is not None:
        return f"{type_text(inner)} or null"
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Literal:
        return "one of the valid values"
    if origin is tuple:
        return f"list of {type_text(args[0])}"
    if origin is dict:
        return f"mapping of text to {type_text(args[1])}"
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return {str: "text", int: "whole number", float: "number", bool: "true or false"}.get(tp, str(tp))


def _yaml_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def default_text(field: FieldDoc) -> str:
    if field.required:
        return "**required**"
    value = json_default(field.default)
    if value is dataclasses.MISSING:
        return "its fields' defaults"
    return f"`{_yaml_value(value)}`"


def values_text(cls: type, field: FieldDoc, catalog: Catalog) -> str:
    choices = [str(v) for v in literal_values(field.tp)]
    from_catalog = CATALOG_VALUES.get((cls, field.name))
    if from_catalog:
        choices = from_catalog(catalog)
    return ", ".join(f"`{c}`" for c in choices)


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def class_paths() -> dict[type, str]:
    """Where each class sits in a config file, e.g. ``gpu_pools[].consumption``."""
    classes = config_classes()
    paths: dict[type, str] = {classes[0].cls: "(top level)"}
    for doc in classes:
        base = "" if doc.cls is classes[0].cls else paths[doc.cls]
        for f in doc.fields:
            suffix = "[]" if typing.get_origin(optional_inner(f.tp) or f.tp) is tuple else ""
            if typing.get_origin(optional_inner(f.tp) or f.tp) is dict:
                suffix = ".<key>"
            for nested in _classes_of(f.tp):
                paths.setdefault(nested, f"{base}.{f.name}{suffix}".lstrip("."))
    return paths


def _classes_of(tp: Any) -> list[type]:
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return [tp]
    return [c for a in typing.get_args(tp) for c in _classes_of(a)]


def _section(doc: ClassDoc, path: str, catalog: Catalog) -> list[str]:
    lines = [
        f"## {doc.name}",
        "",
        f"Where: `{path}`." if path != "(top level)" else "Where: the top level of the file.",
    ]
    if doc.shorthand:
        lines.append(f"A plain string is shorthand for `{{{doc.shorthand}: <string>}}`.")
    if doc.doc:
        lines += ["", doc.doc]
    lines += ["", "| Field | Type | Default | Valid values | Notes |", "|---|---|---|---|---|"]
    for f in doc.fields:
        row = [f"`{f.name}`", type_text(f.tp), default_text(f), values_text(doc.cls, f, catalog), f.comment]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return [*lines, ""]


def _examples() -> list[str]:
    lines = [
        "## Consumption examples",
        "",
        "One `gpu_pools` entry per way of getting VMs (TPU pools take the same `consumption`):",
        "",
    ]
    for title, example in CONSUMPTION_EXAMPLES.items():
        lines += [
            f"**{title}**",
            "",
            "```yaml",
            "gpu_pools:",
            *(f"  {line}" for line in example.splitlines()),
            "```",
            "",
        ]
    return lines


def reference_text(catalog: Catalog | None = None) -> str:
    """The committed ``docs/config-reference.md``, exactly."""
    catalog = catalog or load_catalog()
    classes = config_classes()
    paths = class_paths()
    head = [
        "# Config reference: `config/<env>.yaml`",
        "",
        "<!-- Generated by `gke-accel schema --write` from the config dataclasses (model/*/spec.py);"
        " do not edit by hand. -->",
        "",
        "Every field of an environment file, with its type, default and valid values. Unknown keys are",
        "errors. Rules that involve several fields or the catalog (topologies, zones, quotas) are checked by",
        "`gke-accel validate` ([validation.md](validation.md)); how to choose: [configuration.md](configuration.md).",
        f"Editors with a YAML language server read the JSON Schema `{SCHEMA_PATH}` from the first",
        "line of each shipped config (`# yaml-language-server: $schema=...`): completion, hover text and",
        "inline errors.",
        "",
        "Sections: " + ", ".join(f"[{c.name}](#{c.name.lower()})" for c in classes) + ", [consumption examples]"
        "(#consumption-examples).",
        "",
    ]
    body = [line for doc in classes for line in _section(doc, paths[doc.cls], catalog)]
    return "\n".join([*head, *body, *_examples()]).rstrip() + "\n"
