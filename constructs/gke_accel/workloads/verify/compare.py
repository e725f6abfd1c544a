"""Compare an object the plan declares with the one the API server stores, field by field.

Server defaults are normalised away by comparing only what the plan declares: every declared field
must be stored with the same value, recursively (a map may hold more keys on the server, e.g.
``terminationMessagePath`` in a container or ``kubernetes.io/metadata.name`` on a Namespace; a list
must have exactly the declared items, so an extra Role rule or RoleBinding subject is drift).
Quantities are compared by value (``4Ti`` == ``4096Gi``, ``16`` == 16), as the server canonicalises
them. Of ``metadata`` only the declared labels and annotations are compared.
"""

from __future__ import annotations

from typing import Any

from gke_accel.workloads.quantity import parse_quantity

Obj = dict[str, Any]
_IGNORED_TOP = {"apiVersion", "kind", "status"}
_SHOWN = 80  # characters of a value shown in a difference


def _show(value: Any) -> str:
    text = "(missing)" if value is None else str(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _same_scalar(want: Any, have: Any) -> bool:
    if want == have:
        return True
    if isinstance(want, bool) or isinstance(have, bool):
        return False
    a, b = parse_quantity(want), parse_quantity(have)
    return a is not None and a == b


def differences(want: Any, have: Any, path: str = "") -> list[str]:
    """Where ``have`` (stored) does not hold what ``want`` (declared) says, as ``path=have, expected want``."""
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return [f"{path or '.'}={_show(have)}, expected {_show(want)}"]
        out: list[str] = []
        for key, value in want.items():
            out += differences(value, have.get(key), f"{path}.{key}" if path else str(key))
        return out
    if isinstance(want, list):
        if not isinstance(have, list):
            return [f"{path}={_show(have)}, expected {_show(want)}"]
        if len(want) != len(have):
            return [f"{path} has {len(have)} item(s), expected {len(want)}: {_show(want)}"]
        out = []
        for i, (w, h) in enumerate(zip(want, have, strict=True)):
            out += differences(w, h, f"{path}[{i}]")
        return out
    return [] if _same_scalar(want, have) else [f"{path}={_show(have)}, expected {_show(want)}"]


def object_drift(expected: Obj, live: Obj) -> list[str]:
    """Every difference between a declared object and the stored one (empty: it matches)."""
    out: list[str] = []
    meta_want, meta_have = expected.get("metadata") or {}, live.get("metadata") or {}
    for key in ("labels", "annotations"):
        if key in meta_want:
            out += differences(meta_want[key], meta_have.get(key) or {}, f"metadata.{key}")
    for key, value in expected.items():
        if key not in _IGNORED_TOP and key != "metadata":
            out += differences(value, live.get(key), key)
    return out


def plural(kind: str) -> str:
    """The resource name of a kind (``NetworkPolicy`` -> ``networkpolicies``)."""
    lower = kind.lower()
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    if lower.endswith("s"):
        return lower + "es"
    return lower + "s"


def list_path(api_version: str, kind: str) -> str:
    """The API path listing every object of a kind, in all namespaces."""
    prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    return f"{prefix}/{plural(kind)}"
