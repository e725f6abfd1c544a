"""Compare the top-level blocks other than ``resource``: the state backend, provider configurations,
provider requirements, variables, outputs, data sources and locals. Pure: no jsii, no I/O.

Backend and provider changes are high-risk: the first decides where Terraform reads its state (a new
place holds none, so everything is planned as new), the second where and as whom it applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .diff import flatten
from .model import Action, AttributeChange, BlockChange
from .secrets import MASK, mask

_BACKEND = (
    "Terraform reads its state from the new location, which does not hold this stack's state: unless the "
    "state is migrated first, the next plan creates every resource again next to the existing ones"
)
_PROVIDER = {
    "kubernetes": (
        "the stack's Kubernetes objects are applied to whichever cluster these settings reach (a "
        "`config_path`/`config_context` is the operator's kubeconfig, not this stack's cluster)"
    ),
    "google": (
        "resources that take their project or region from the provider are planned in the new place: "
        "created there, and the existing ones destroyed; credentials and quota billing change with it"
    ),
}
_OTHER_PROVIDER = "how and where Terraform applies this provider's resources changes"
_PLAIN = {
    "required_providers": "provider versions change: every resource may plan differently; read the provider changelog",
    "variable": "an input variable changes (its default, type or description)",
    "output": "an output value changes: scripts and stacks that read it see the new value",
    "data": "a data source reads something else: resources that use it may change at plan time",
    "locals": "a local value changes",
}


def _attrs(kind: str, before: Any, after: Any) -> tuple[AttributeChange, ...]:
    """Changed leaves; a sensitive variable's default and a sensitive output's value are masked."""
    old, _ = flatten(before if isinstance(before, Mapping) else {"value": before})
    new, _ = flatten(after if isinstance(after, Mapping) else {"value": after})
    hidden = {"variable": "default", "output": "value"}.get(kind)
    secret = any(isinstance(b, Mapping) and b.get("sensitive") in (True, "true") for b in (before, after))

    def shown(path: str, value: Any) -> Any:
        if value is not None and secret and hidden and (path == hidden or path.startswith(hidden + ".")):
            return MASK
        return mask(kind, path, value)

    return tuple(
        AttributeChange(path, shown(path, old.get(path)), shown(path, new.get(path)))
        for path in sorted(old.keys() | new.keys())
        if old.get(path) != new.get(path)
    )


def _keyed(doc: Mapping[str, Any] | None) -> dict[tuple[str, str], Any]:
    """Every non-resource block of a stack, keyed by (kind, name)."""
    doc = doc or {}
    out: dict[tuple[str, str], Any] = {}
    terraform = doc.get("terraform") or {}
    for backend_type, body in (terraform.get("backend") or {}).items():
        out[("backend", "")] = {"type": backend_type, **(body or {})}
    for name, body in (terraform.get("required_providers") or {}).items():
        out[("required_providers", name)] = body
    for name, configs in (doc.get("provider") or {}).items():
        configs = configs if isinstance(configs, list) else [configs]
        for config in configs:
            alias = (config or {}).get("alias")
            out[("provider", f"{name}.{alias}" if alias else name)] = config
    for kind in ("variable", "output", "locals"):
        for name, body in (doc.get(kind) or {}).items():
            out[(kind, name)] = body
    for dtype, by_id in (doc.get("data") or {}).items():
        for logical_id, body in (by_id or {}).items():
            out[("data", f"{dtype}.{logical_id}")] = body
    return out


def _explain(kind: str, name: str, action: Action, attrs: tuple[AttributeChange, ...]) -> tuple[bool, str]:
    if kind == "backend":
        return True, _BACKEND
    if kind == "provider":
        what = _PROVIDER.get(name.split(".")[0], _OTHER_PROVIDER)
        if action == "delete":
            what = "resources that still use this provider configuration can no longer be planned"
        return True, what
    return False, _PLAIN.get(kind, "")


def diff_blocks(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[BlockChange]:
    """Every non-resource block added, removed or changed (a stack added or removed: nothing here,
    the resources say it all)."""
    if before is None or after is None:
        return []
    old, new = _keyed(before), _keyed(after)
    out: list[BlockChange] = []
    for key in sorted(old.keys() | new.keys()):
        kind, name = key
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        action: Action = "create" if a is None else "delete" if b is None else "update"
        attrs = _attrs(kind, a or {}, b or {})
        high_risk, explanation = _explain(kind, name, action, attrs)
        out.append(BlockChange(kind, name, action, attrs, high_risk, explanation))
    return out


def backend_location(doc: Mapping[str, Any] | None) -> str:
    """Where a stack keeps its state, for people: ``gcs bucket/prefix`` or ``local path``."""
    for backend_type, body in (((doc or {}).get("terraform") or {}).get("backend") or {}).items():
        body = body or {}
        where = "/".join(str(body[k]) for k in ("bucket", "prefix", "path") if body.get(k))
        return f"{backend_type} {where}".strip()
    return "local terraform.tfstate (default)"
