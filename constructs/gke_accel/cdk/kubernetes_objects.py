"""Turn a Kubernetes manifest (API field names) into the typed ``kubernetes_*_v1`` resource.

The provider's schema mirrors the API with snake_case names and singular block names
(``containers`` -> ``container``); fields are matched against the binding's own type hints, so a
field the provider does not know is an error here, not a silently dropped value.
"""

from __future__ import annotations

import collections.abc
import functools
import re
import typing
from typing import Any

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._kubernetes import RESOURCE_BY_KIND

# API names whose provider name is not a snake_case or singular form of them.
_ALIASES = {"updateStrategy": "strategy"}
_SKIP = {"apiVersion", "kind"}


def _snake(name: str) -> str:
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


@functools.cache
def _hints(cls: Any) -> dict[str, Any]:
    hints = dict(typing.get_type_hints(cls.__init__))
    hints.pop("return", None)
    return hints


def _field(api_name: str, hints: dict[str, Any], where: str) -> str:
    snake = _snake(api_name)
    for candidate in (_ALIASES.get(api_name), snake, snake.removesuffix("s"), snake + "_"):
        if candidate and candidate in hints:
            return candidate
    raise KeyError(f"{where}: the kubernetes provider has no field for {api_name!r}")


def _struct(tp: Any) -> Any:
    for arg in typing.get_args(tp) or (tp,):
        if isinstance(arg, type) and hasattr(arg, "__jsii_struct_bases__"):
            return arg
    return None


def _element(tp: Any) -> Any:
    for arg in typing.get_args(tp):
        if typing.get_origin(arg) in (list, collections.abc.Sequence):
            return typing.get_args(arg)[0]
    return Any


def _convert(tp: Any, value: Any, where: str) -> Any:
    if isinstance(value, dict):
        struct = _struct(tp)
        if struct is None:  # a map such as labels or quota limits
            return value
        hints = _hints(struct)
        return struct(
            **{(f := _field(k, hints, where)): _convert(hints[f], v, f"{where}.{k}") for k, v in value.items()}
        )
    if isinstance(value, list):
        element = _element(tp)
        return [_convert(element, item, f"{where}[]") for item in value]
    return value


def typed_resource(scope: Construct, id: str, manifest: dict[str, Any], **extra: Any) -> Any:
    """Create the typed resource for ``manifest`` under ``scope``."""
    cls = RESOURCE_BY_KIND[manifest["kind"]]
    hints = _hints(cls)
    kwargs = {
        (f := _field(k, hints, manifest["kind"])): _convert(hints[f], v, f"{manifest['kind']}.{k}")
        for k, v in manifest.items()
        if k not in _SKIP
    }
    return cls(scope, id, **kwargs, **extra)
