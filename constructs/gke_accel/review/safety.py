"""The Safety section: changes that lose data or protection, or that Terraform will refuse.

Each item says in one sentence what happens and in one what to do instead. Derived from the
resource and block changes of one stack plus the two synthesized documents. Pure: no jsii, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .blocks import backend_location
from .lifecycle import lifecycle_items
from .model import BlockChange, ResourceChange, SafetyItem

CLUSTER = "google_container_cluster"
NAMESPACES = ("kubernetes_namespace_v1", "kubernetes_namespace")
BUCKET = "google_storage_bucket"


def _body(doc: Mapping[str, Any] | None, rtype: str, logical_id: str) -> Mapping[str, Any]:
    return ((doc or {}).get("resource") or {}).get(rtype, {}).get(logical_id) or {}


def _metadata(body: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = body.get("metadata") or {}
    if isinstance(metadata, list):
        metadata = metadata[0] if metadata else {}
    return metadata if isinstance(metadata, Mapping) else {}


def _ns_name(body: Mapping[str, Any]) -> str:
    return str(_metadata(body).get("name", ""))


def _team(body: Mapping[str, Any]) -> str:
    return str((_metadata(body).get("labels") or {}).get("team", ""))


def _created_namespaces(changes: list[ResourceChange], after_doc: Mapping[str, Any] | None) -> dict[str, str]:
    """Team label -> name of each namespace the change creates (a team's namespace renamed shows
    as one namespace destroyed and another created: their object IDs follow the name)."""
    out: dict[str, str] = {}
    for change in changes:
        if change.rtype in NAMESPACES and change.action == "create":
            body = _body(after_doc, change.rtype, change.logical_id)
            if _team(body):
                out[_team(body)] = _ns_name(body)
    return out


def _protected(body: Mapping[str, Any]) -> bool:
    """google_container_cluster.deletion_protection defaults to true in provider 5.0+."""
    return body.get("deletion_protection", True) not in (False, "false")


def _prevents_destroy(body: Mapping[str, Any] | None) -> bool:
    lifecycle = (body or {}).get("lifecycle") or {}
    return isinstance(lifecycle, Mapping) and lifecycle.get("prevent_destroy") in (True, "true")


def _resources(doc: Mapping[str, Any] | None) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {
        (rtype, logical_id): body
        for rtype, by_id in ((doc or {}).get("resource") or {}).items()
        for logical_id, body in (by_id or {}).items()
    }


def _who(rtype: str, logical_id: str, body: Mapping[str, Any]) -> str:
    return f"`{body.get('name') or logical_id}` ({rtype})"


def _plan_refused(change: ResourceChange, after: Mapping[str, Any]) -> SafetyItem | None:
    """Terraform rejects any plan that destroys an object whose configuration keeps
    ``lifecycle.prevent_destroy`` (a replacement destroys it), before anything is applied."""
    if change.action != "replace" or change.previous_logical_id or not _prevents_destroy(after):
        return None
    who = _who(change.rtype, change.logical_id, after)
    return SafetyItem(
        "plan-refused",
        f"this plan will fail: {who} has prevent_destroy and this change replaces it",
        f"Terraform refuses the whole plan (`Instance cannot be destroyed`; forced by {_forced(change)}), "
        "so nothing of this change is applied.",
        "Revert the change that forces the replacement; if the resource really must be replaced, remove "
        "`prevent_destroy` in a separate, reviewed change first.",
    )


def _prevent_destroy_lost(
    changes: list[ResourceChange], before_doc: Mapping[str, Any] | None, after_doc: Mapping[str, Any] | None
) -> list[SafetyItem]:
    """A resource that had ``lifecycle.prevent_destroy`` and has it no longer (or is removed from the
    configuration, which takes the protection with it). Terraform plans nothing for a lifecycle change,
    so this is found on the documents, not in the changes."""
    old, new = _resources(before_doc), _resources(after_doc)
    moved = {(c.rtype, c.previous_logical_id): (c.rtype, c.logical_id) for c in changes if c.previous_logical_id}
    items: list[SafetyItem] = []
    for key, body in sorted(old.items()):
        if not _prevents_destroy(body):
            continue
        after = new.get(moved.get(key, key))
        if after is not None and _prevents_destroy(after):
            continue
        who = _who(*key, body)
        if after is None:
            items.append(
                SafetyItem(
                    "prevent-destroy-lost",
                    f"{who} is removed from the configuration, and its `prevent_destroy` with it",
                    "`prevent_destroy` protects only a resource still in the configuration: Terraform destroys it.",
                    "Keep the resource; remove it only in a change of its own, after its data has moved.",
                )
            )
            continue
        items.append(
            SafetyItem(
                "prevent-destroy-lost",
                f"{who} loses `lifecycle.prevent_destroy`",
                "From the next apply on, Terraform no longer refuses a plan that destroys or replaces it.",
                "Keep `prevent_destroy`; lift it only in a separate, reviewed change that says why.",
            )
        )
    return items


def production_off(before: bool | None, after: bool | None, protected: int) -> SafetyItem | None:
    """``production: true`` turned off: the one line that lifts every production guard rail."""
    if before is not True or after is not False:
        return None
    lost = f"`lifecycle.prevent_destroy` leaves {protected} resource(s), and " if protected else ""
    return SafetyItem(
        "production-off",
        "`production` turned off (true → false)",
        f"Every production guard rail lapses: {lost}the production-only validation rules (the reason for "
        "turning deletion protection off, private-only authorized networks, Binary Authorization, secrets "
        "encryption, a gcs backend) no longer apply to this environment.",
        "Keep `production: true`; if the environment really stops being production, make that a change of "
        "its own, reviewed as such.",
    )


def _forced(change: ResourceChange) -> str:
    return ", ".join(f"`{a.path}`" for a in change.replaced_by[:3]) or "its address"


def _protection_off(change: ResourceChange, before: Mapping[str, Any], after: Mapping[str, Any]) -> SafetyItem | None:
    if change.action != "update" or ("deletion_protection" not in before and change.rtype != CLUSTER):
        return None
    if _protected(before) and not _protected(after):
        # Production requires a reason (cluster.deletion_protection_reason); synth records it in the "//" block.
        reason = (after.get("//") or {}).get("deletion_protection_reason")
        return SafetyItem(
            "deletion-protection-off",
            f"deletion protection turned off on `{change.name or change.logical_id}` ({change.rtype})"
            + (f"; reason given: {reason}" if reason else ""),
            "From the next apply on, a destroy or any change that replaces it deletes it and everything on it "
            "without a further safeguard.",
            "Keep `deletion_protection` on; turn it off only in the change that deletes the resource, "
            "after its workloads and data have moved.",
        )
    return None


def _cluster(change: ResourceChange, before: Mapping[str, Any]) -> SafetyItem | None:
    if change.rtype != CLUSTER or change.action not in ("replace", "delete"):
        return None
    name = f"cluster `{change.name or change.logical_id}`"
    if _protected(before):
        verb = "replacement" if change.action == "replace" else "deletion"
        return SafetyItem(
            "cluster-refused",
            f"{name}: {verb} that deletion protection will refuse",
            f"Terraform must destroy the existing cluster (forced by {_forced(change)}) and its deletion "
            "protection makes that step fail, so the apply stops half-way with the other changes made.",
            "Revert that attribute; to really change it, create a new cluster (a new environment), move the "
            "workloads, then delete the old one with deletion protection off in a change of its own.",
        )
    return SafetyItem(
        "cluster-recreated",
        f"{name} is {'recreated' if change.action == 'replace' else 'destroyed'}",
        "Every node pool, namespace, workload and volume on it is deleted; a new cluster starts empty.",
        "Revert the change, or create the new cluster next to the old one and move the workloads first.",
    )


def _namespace(
    change: ResourceChange, before: Mapping[str, Any], after: Mapping[str, Any], created: dict[str, str]
) -> SafetyItem | None:
    if change.rtype not in NAMESPACES or change.action not in ("replace", "delete"):
        return None
    old = _ns_name(before)
    new = _ns_name(after) if change.action == "replace" else created.get(_team(before), "")
    what = f"renamed to `{new}`" if new and new != old else "removed"
    return SafetyItem(
        "namespace-removed",
        f"namespace `{old}` {what}",
        f"Kubernetes deletes namespace `{old}` with every workload, secret and persistent volume claim in it.",
        f"Keep the namespace: to rename a team, set its `namespace: {old}`; otherwise move the workloads and "
        "data out first and remove the namespace in a later change.",
    )


def _bucket(change: ResourceChange, before: Mapping[str, Any]) -> SafetyItem | None:
    if change.rtype != BUCKET or change.action not in ("replace", "delete"):
        return None
    name = before.get("name") or change.name or change.logical_id
    verb = "replaced" if change.action == "replace" else "destroyed"
    if before.get("force_destroy") in (True, "true"):
        consequence = f"Every object in `{name}` (the checkpoints) is deleted with it (force_destroy = true)."
    else:
        consequence = (
            f"The apply fails when it deletes `{name}` while it holds objects (force_destroy = false); the "
            "checkpoints stay in the old bucket and the stack is left half-applied."
        )
    return SafetyItem(
        "bucket-replaced",
        f"checkpoint bucket `{name}` {verb}",
        consequence,
        "Keep the bucket's name and location; to move, add the new bucket in one change, copy the "
        "checkpoints, and remove the old one in a later change.",
    )


def _address_moved(change: ResourceChange) -> SafetyItem | None:
    if not change.previous_logical_id:
        return None
    old, new = f"{change.rtype}.{change.previous_logical_id}", change.address
    return SafetyItem(
        "state-move",
        f"`{change.name}` moves from `{old}` to `{new}` in the state",
        "Terraform does not know the two addresses are one object: it destroys the existing one and creates a new one.",
        f"Add a `moved` block (from `{old}` to `{new}`) or run `terraform state mv {old} {new}` before the apply.",
    )


def _block(
    block: BlockChange, before_doc: Mapping[str, Any] | None, after_doc: Mapping[str, Any] | None
) -> SafetyItem | None:
    if not block.high_risk:
        return None
    if block.kind == "backend":
        old, new = backend_location(before_doc), backend_location(after_doc)
        return SafetyItem(
            "state-move",
            f"state backend moves from `{old}` to `{new}`",
            block.explanation + ".",
            "Migrate the state before the first apply (`terraform init -migrate-state`, or copy the state "
            "object), or keep the old backend settings.",
        )
    return SafetyItem(
        "provider-changed",
        f"{block.label} configuration changes ({', '.join(f'`{a.path}`' for a in block.attributes[:4])})",
        block.explanation[0].upper() + block.explanation[1:] + ".",
        "Keep provider settings derived from this stack's own resources; if the target really moves, "
        "review a `terraform plan` against it before applying.",
    )


def safety_items(
    changes: list[ResourceChange],
    blocks: list[BlockChange],
    before_doc: Mapping[str, Any] | None,
    after_doc: Mapping[str, Any] | None,
    *,
    production: tuple[bool | None, bool | None] = (None, None),
) -> list[SafetyItem]:
    """Every safety item of one stack: ``production`` turned off and block items (state, providers)
    first, then protection lost, then per resource. ``production``: the config's flag at base and head."""
    lost = _prevent_destroy_lost(changes, before_doc, after_doc)
    off = production_off(*production, protected=len(lost))
    items = ([off] if off else []) + [i for i in (_block(b, before_doc, after_doc) for b in blocks) if i] + lost
    created = _created_namespaces(changes, after_doc)
    for change in changes:
        before = _body(before_doc, change.rtype, change.previous_logical_id or change.logical_id)
        after = _body(after_doc, change.rtype, change.logical_id)
        refused = _plan_refused(change, after)
        for item in (
            refused,
            # the plan fails before anything is applied: no half-way apply, no data lost
            None if refused else _cluster(change, before),
            _protection_off(change, before, after),
            _namespace(change, before, after, created),
            None if refused else _bucket(change, before),
            _address_moved(change),
        ):
            if item is not None:
                items.append(item)
        items += lifecycle_items(change, before, after)  # exclusions removed, training pools on surge
    return items
