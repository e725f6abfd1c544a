"""Compare two synthesized stacks (``cdk.tf.json`` dicts) resource by resource. Pure: no jsii, no I/O.

Resources are keyed by ``<type>.<logical id>`` (stable for the same construct path). Attribute paths
are flattened (``node_config.guest_accelerator[0].count``); the ``//`` metadata blocks are ignored
except for the checkov skips recorded in them. Attributes the provider declares as sets compare as
sets (reordering is no change); meta-arguments are not attributes, but a ``replace_triggered_by``
reference to a changed resource replaces the resource, as Terraform does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .model import Action, AttributeChange, ResourceChange
from .rules import ReplaceRules, load_rules, normalize
from .secrets import mask

META_KEY = "//"
SKIP_KEY = "checkov_skip"
META_ARGUMENTS = ("lifecycle", "depends_on")  # Terraform plans nothing for a change of these alone
_ABSENT = object()
_REFERENCE = re.compile(r"^(?:\$\{)?([A-Za-z0-9_]+\.[A-Za-z0-9_-]+)\}?$")


def canonical(value: Any, sets: frozenset[str], path: str = "") -> Any:
    """``value`` with every set attribute (``sets``: paths without indexes) in a fixed order."""
    if isinstance(value, Mapping):
        return {k: canonical(v, sets, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        items = [canonical(v, sets, f"{path}[{i}]") for i, v in enumerate(value)]
        if normalize(path) in sets:
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return items
    return value


def _attributes(body: Mapping[str, Any], sets: frozenset[str]) -> dict[str, Any]:
    attributes: dict[str, Any] = canonical({k: v for k, v in body.items() if k not in META_ARGUMENTS}, sets)
    return attributes


def replace_triggers(body: Mapping[str, Any] | None) -> list[str]:
    """The resource addresses in ``lifecycle.replace_triggered_by`` (``terraform_data.x``)."""
    lifecycle = (body or {}).get("lifecycle") or {}
    refs = lifecycle.get("replace_triggered_by") or [] if isinstance(lifecycle, Mapping) else []
    return [m.group(1) for m in (_REFERENCE.match(str(r)) for r in refs) if m]


def flatten(value: Any, prefix: str = "") -> tuple[dict[str, Any], dict[str, int]]:
    """Leaves (scalars, lists of scalars, empty blocks) and block counts of one resource body."""
    leaves: dict[str, Any] = {}
    blocks: dict[str, int] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            if path:
                blocks[path] = 1
            items = [(k, v) for k, v in node.items() if k != META_KEY]
            if not items and path:
                leaves[path] = {}
            for key, child in items:
                walk(child, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list) and node and all(isinstance(i, Mapping) for i in node):
            blocks[path] = len(node)
            for i, child in enumerate(node):
                walk(child, f"{path}[{i}]")
        else:
            leaves[path] = node

    walk(value, prefix)
    return leaves, blocks


def attribute_changes(
    rtype: str, before: Mapping[str, Any], after: Mapping[str, Any], rules: ReplaceRules, *, tpu: bool = False
) -> list[AttributeChange]:
    """Every changed leaf, plus every block added or removed, with what the change does
    (``tpu``: the resource is a TPU slice pool on either side)."""
    sets = rules.sets(rtype)
    old_leaves, old_blocks = flatten(_attributes(before, sets))
    new_leaves, new_blocks = flatten(_attributes(after, sets))
    changes: dict[str, AttributeChange] = {}
    for path in sorted(old_leaves.keys() | new_leaves.keys()):
        old, new = old_leaves.get(path, _ABSENT), new_leaves.get(path, _ABSENT)
        if old != new:
            a, b = None if old is _ABSENT else old, None if new is _ABSENT else new
            effect = rules.effect(rtype, path, tpu=tpu) or rules.zone_effect(rtype, path, a, b)
            changes[path] = AttributeChange(path, mask(rtype, path, a), mask(rtype, path, b), effect)
    for path in sorted(old_blocks.keys() | new_blocks.keys()):
        old_n, new_n = old_blocks.get(path, 0), new_blocks.get(path, 0)
        if old_n != new_n:  # a block added or removed: the SDK's element-count ForceNew
            effect = rules.effect(rtype, path, tpu=tpu)
            if effect is not None and path not in changes:
                changes[path] = AttributeChange(path + ".#", old_n, new_n, effect)
    return sorted(changes.values(), key=lambda c: c.path)


def is_accelerator_pool(body: Mapping[str, Any] | None, tpu_machine_types: Iterable[str], rules: ReplaceRules) -> bool:
    """A node pool with GPUs (guest_accelerator with count > 0) or on a TPU machine type."""
    if not body:
        return False
    node_config = body.get("node_config") or {}
    if isinstance(node_config, list):
        node_config = node_config[0] if node_config else {}
    for accel in node_config.get("guest_accelerator") or []:
        if isinstance(accel, Mapping) and accel.get("count", 1) not in (0, "0"):
            return True
    return is_tpu_pool(body, tpu_machine_types, rules)


def is_tpu_pool(body: Mapping[str, Any] | None, tpu_machine_types: Iterable[str], rules: ReplaceRules) -> bool:
    node_config = (body or {}).get("node_config") or {}
    if isinstance(node_config, list):
        node_config = node_config[0] if node_config else {}
    machine = str(node_config.get("machine_type") or "")
    return machine in set(tpu_machine_types) or any(machine.startswith(p) for p in rules.tpu_machine_prefixes)


def _skips(body: Mapping[str, Any] | None) -> set[str]:
    if not body:
        return set()
    return set((body.get(META_KEY) or {}).get(SKIP_KEY) or {})


def _resources(doc: Mapping[str, Any] | None) -> dict[tuple[str, str], Mapping[str, Any]]:
    out: dict[tuple[str, str], Mapping[str, Any]] = {}
    for rtype, by_id in ((doc or {}).get("resource") or {}).items():
        for logical_id, body in by_id.items():
            out[(rtype, logical_id)] = body
    return out


def diff_stack(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    *,
    tpu_machine_types: Iterable[str] = (),
    rules: ReplaceRules | None = None,
) -> list[ResourceChange]:
    """The resource changes from ``before`` to ``after`` (either may be None: a stack added or removed)."""
    rules = rules or load_rules()
    tpu_machines = tuple(tpu_machine_types)
    old, new = _resources(before), _resources(after)
    changes: list[ResourceChange] = []

    def accel(*bodies: Mapping[str, Any] | None) -> bool:
        return any(is_accelerator_pool(b, tpu_machines, rules) for b in bodies)

    for key in sorted(old.keys() | new.keys()):
        rtype, logical_id = key
        a, b = old.get(key), new.get(key)
        is_pool = rtype == "google_container_node_pool"
        if a is None or b is None:
            action: Action = "create" if a is None else "delete"
            body = b if a is None else a
            changes.append(
                ResourceChange(
                    rtype,
                    logical_id,
                    action,
                    name=str((body or {}).get("name", "")),
                    accelerator_pool=is_pool and accel(body),
                )
            )
            continue
        tpu = is_pool and (is_tpu_pool(a, tpu_machines, rules) or is_tpu_pool(b, tpu_machines, rules))
        attrs = attribute_changes(rtype, a, b, rules, tpu=tpu)
        skips_added = tuple(sorted(_skips(b) - _skips(a)))
        skips_removed = tuple(sorted(_skips(a) - _skips(b)))
        if not attrs and not skips_added and not skips_removed:
            continue
        replace = any(c.forces_replacement for c in attrs)
        changes.append(
            ResourceChange(
                rtype,
                logical_id,
                "replace" if replace else "update",
                name=str(b.get("name", "")),
                attributes=tuple(attrs),
                accelerator_pool=is_pool and accel(a, b),
                recreates_nodes=not replace and any(c.effect == "recreates_nodes" for c in attrs),
                skips_added=skips_added,
                skips_removed=skips_removed,
            )
        )
    return _apply_replace_triggers(
        _pair_renamed_constructs(changes, old, new, rules, tpu_machines), new, rules, tpu_machines
    )


def _apply_replace_triggers(
    changes: list[ResourceChange],
    new: dict[tuple[str, str], Mapping[str, Any]],
    rules: ReplaceRules,
    tpu_machines: tuple[str, ...],
) -> list[ResourceChange]:
    """A resource whose ``replace_triggered_by`` names a resource that is updated or replaced is
    replaced too (Terraform decides it from the referenced resource's planned action)."""
    by_address = {c.address: c for c in changes}
    for (rtype, logical_id), body in sorted(new.items()):
        address = f"{rtype}.{logical_id}"
        causes = [
            r for r in replace_triggers(body) if r in by_address and by_address[r].action in ("update", "replace")
        ]
        own = by_address.get(address)
        if not causes or (own is not None and own.action in ("create", "delete")):
            continue
        trigger = tuple(
            AttributeChange(f"lifecycle.replace_triggered_by[{r}]", None, None, "replace_trigger") for r in causes
        )
        base = own or ResourceChange(rtype, logical_id, "update", name=str(body.get("name", "")))
        by_address[address] = ResourceChange(
            rtype,
            logical_id,
            "replace",
            name=base.name,
            attributes=trigger + base.attributes,
            accelerator_pool=base.accelerator_pool
            or (rtype == "google_container_node_pool" and is_accelerator_pool(body, tpu_machines, rules)),
            previous_logical_id=base.previous_logical_id,
            skips_added=base.skips_added,
            skips_removed=base.skips_removed,
        )
    return sorted(by_address.values(), key=lambda c: c.address)


def _pair_renamed_constructs(
    changes: list[ResourceChange],
    old: dict[tuple[str, str], Mapping[str, Any]],
    new: dict[tuple[str, str], Mapping[str, Any]],
    rules: ReplaceRules,
    tpu_machines: tuple[str, ...],
) -> list[ResourceChange]:
    """A delete and a create of the same type and name: the construct moved, the resource is replaced."""
    deletes = {(c.rtype, c.name): c for c in changes if c.action == "delete" and c.name}
    paired: set[str] = set()
    out: list[ResourceChange] = []
    for change in changes:
        gone = deletes.get((change.rtype, change.name)) if change.action == "create" and change.name else None
        if gone is None:
            out.append(change)
            continue
        a, b = old[(gone.rtype, gone.logical_id)], new[(change.rtype, change.logical_id)]
        tpu = is_tpu_pool(a, tpu_machines, rules) or is_tpu_pool(b, tpu_machines, rules)
        attrs = attribute_changes(change.rtype, a, b, rules, tpu=change.rtype == "google_container_node_pool" and tpu)
        out.append(
            ResourceChange(
                change.rtype,
                change.logical_id,
                "replace",
                name=change.name,
                attributes=tuple(attrs),
                accelerator_pool=change.rtype == "google_container_node_pool"
                and (is_accelerator_pool(a, tpu_machines, rules) or is_accelerator_pool(b, tpu_machines, rules)),
                previous_logical_id=gone.logical_id,
            )
        )
        paired.add(gone.address)
    return [c for c in out if c.address not in paired]
