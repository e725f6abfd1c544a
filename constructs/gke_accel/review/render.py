"""Render a Review: Markdown for a pull-request comment, and the same content as JSON."""

from __future__ import annotations

import json
from typing import Any

from .facts import facts_to_dict
from .model import AttributeChange, CapacityLine, EnvironmentFacts, ResourceChange, Review, StackReview

MARKER = "<!-- gke-accel-review -->"  # lets CI find and update its own comment
MAX_VALUE = 80

_EFFECT_LABEL = {
    "force_new": "forces replacement",
    "identity": "identity: forces replacement",
    "not_updatable": "cannot change in place: replace",
    "recreates_nodes": "recreates every node",
}
_STATUS_LABEL = {"added": " (new stack)", "removed": " (stack removed)", "error": " (cannot compare)"}


def summary_line(stack: StackReview) -> str:
    """One line per stack: the counts, destructive ones called out; "no changes" plainly."""
    if stack.status == "error" and not stack.changes:
        return f"{stack.name}: cannot compare: {stack.error.splitlines()[0]}"
    if not stack.has_changes:
        return f"{stack.name}: no changes"
    line = (
        f"{stack.name}{_STATUS_LABEL.get(stack.status, '')}: {stack.count('replace')} to replace, "
        f"{stack.count('delete')} to destroy, {stack.count('create')} to add, "
        f"{stack.count('update')} to change in place"
    )
    if stack.destructive:
        line += f" ({len(stack.destructive)} destructive)"
    if not stack.changes and stack.facts_changed:
        line += " (capacity, quota or cost figures change)"
    return line


def summary_lines(review: Review) -> list[str]:
    return [summary_line(s) for s in review.stacks]


def _value(value: Any) -> str:
    text = "(absent)" if value is None else json.dumps(value, sort_keys=True)
    text = text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _pair(before: Any, after: Any) -> tuple[str, str]:
    """Both values; for two long strings, the stretch around their first difference."""
    if isinstance(before, str) and isinstance(after, str) and max(len(before), len(after)) > MAX_VALUE:
        start = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), 0)
        start = max(0, min(start, len(before), len(after)) - 20)
        if start:
            return _value("…" + before[start:]), _value("…" + after[start:])
    return _value(before), _value(after)


def _who(change: ResourceChange) -> str:
    return f"`{change.address}`" + (f" ({change.name})" if change.name else "")


def _change_line(change: ResourceChange) -> str:
    verb = {"delete": "destroy", "replace": "replace", "create": "add", "update": "change"}[change.action]
    line = f"- **{verb}** {_who(change)}"
    if change.previous_logical_id:
        line += f": construct moved (was `{change.previous_logical_id}`)"
    forced = change.replaced_by
    if forced:
        line += ": forced by " + ", ".join(f"`{a.path}`" for a in forced[:4]) + (" …" if len(forced) > 4 else "")
    elif change.recreates_nodes:
        line += ": " + ", ".join(f"`{a.path}`" for a in change.attributes if a.effect == "recreates_nodes")
    if change.warning:
        line += f" — ⚠ {change.warning}"
    if change.skips_added:
        line += f"; new accepted policy skips: {', '.join(change.skips_added)}"
    if change.skips_removed:
        line += f"; policy skips removed: {', '.join(change.skips_removed)}"
    return line


def _attribute_table(changes: list[ResourceChange]) -> list[str]:
    rows: list[tuple[ResourceChange, AttributeChange]] = [(c, a) for c in changes for a in c.attributes]
    if not rows:
        return []
    out = [
        "",
        f"<details><summary>Attribute changes ({len(rows)})</summary>",
        "",
        "| resource | attribute | before | after | effect |",
        "|---|---|---|---|---|",
    ]
    for change, attr in rows:
        before, after = _pair(attr.before, attr.after)
        out.append(
            f"| `{change.logical_id}` | `{attr.path}` | {before} | {after} "
            f"| {_EFFECT_LABEL.get(attr.effect or '', 'in place')} |"
        )
    out += ["", "</details>"]
    return out


def _range(low: int, high: int) -> str:
    return f"{low}" if low == high else f"{low}-{high}"


def _capacity_section(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
    old = {c.key: c for c in (before.capacity if before else ())}
    new = {c.key: c for c in (after.capacity if after else ())}
    if not old and not new:
        return []
    out = [
        "",
        "**Accelerator capacity** (chips or GPUs at the pools' min-max size)",
        "",
        "| accelerator | resource | before | after |",
        "|---|---|---|---|",
    ]
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        mark = "" if (a and b and (a.chips_min, a.chips_max) == (b.chips_min, b.chips_max)) else " **changed**"
        out.append(
            f"| {key[1]} | {key[0]} | {_range(a.chips_min, a.chips_max) if a else '-'} "
            f"| {_range(b.chips_min, b.chips_max) if b else '-'}{mark} |"
        )
    quotas_known = bool((before and before.quotas_known) or (after and after.quotas_known))
    if quotas_known:
        out += _quota_section(old, new)
    return out


def _quota_section(old: dict[tuple[str, str], CapacityLine], new: dict[tuple[str, str], CapacityLine]) -> list[str]:
    rows: list[str] = []
    warnings: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        teams = sorted(set(a.team_quotas if a else {}) | set(b.team_quotas if b else {}))
        for team in teams:
            qa = a.team_quotas.get(team) if a else None
            qb = b.team_quotas.get(team) if b else None
            mark = " **changed**" if qa != qb else ""
            rows.append(f"| {key[1]} | {team} | {'-' if qa is None else qa} | {'-' if qb is None else qb}{mark} |")
        if b is not None and b.over_committed:
            was = " (already before)" if a is not None and a.over_committed else " (new in this change)"
            warnings.append(
                f"- ⚠ {key[1]}: team quotas total {b.quota_total} exceed the pools' maximum {b.chips_max}{was}"
            )
        elif a is not None and a.over_committed:
            warnings.append(f"- {key[1]}: no longer over-committed (quotas {b.quota_total if b else 0})")
    out = ["", "**Team quotas** (requested chips or GPUs)", ""]
    if not rows:
        return [*out, "No team quotas."]
    out += ["| accelerator | team | before | after |", "|---|---|---|---|", *rows]
    out += ["", *warnings] if warnings else ["", "Pool capacity covers every team quota."]
    return out


def _queue_section(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
    old, new = (before.queues if before else {}), (after.queues if after else {})
    changed = [t for t in sorted(old.keys() | new.keys()) if old.get(t) != new.get(t)]
    if not changed:
        return []
    out = ["", "**Kueue queues** (per team; docs/queues.md)", "", "| team | before | after |", "|---|---|---|"]
    return out + [f"| {t} | {old.get(t, '-')} | {new.get(t, '-')} |" for t in changed]


def _money(value: float) -> str:
    return f"${value:,.0f}"


def _delta(value: float) -> str:
    return ("+" if value > 0 else "-" if value < 0 else "±") + _money(abs(value))


def _cost_section(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
    old = before.cost if before else None
    new = after.cost if after else None
    if old is None and new is None:
        return []
    source = (new or old or {}).get("source_date", "")
    out = [
        "",
        f"**Monthly cost** (USD, list prices{' as of ' + source if source else ''})",
        "",
        "| | before | after | delta |",
        "|---|---|---|---|",
    ]
    for label, field in (("at min size", "total_monthly_min"), ("at max size", "total_monthly_max")):
        a = float(old[field]) if old else 0.0
        b = float(new[field]) if new else 0.0
        delta = _delta(b - a) if old and new else "n/a"
        out.append(f"| {label} | {_money(a) if old else '-'} | {_money(b) if new else '-'} | {delta} |")
    return out


def _policy_section(stack: StackReview, checked: bool) -> list[str]:
    if not checked:
        return []
    if not stack.new_findings and not stack.resolved_findings:
        return ["", "**Policy** (checkov): no new findings."]
    out = ["", f"**Policy** (checkov): {len(stack.new_findings)} new, {len(stack.resolved_findings)} resolved", ""]
    out += [f"- new: `{f.check_id}` {f.resource}: {f.title}" for f in stack.new_findings]
    out += [f"- resolved: `{f.check_id}` {f.resource}: {f.title}" for f in stack.resolved_findings]
    return out


def stack_markdown(stack: StackReview, *, policy_checked: bool) -> list[str]:
    out = ["", f"### `{stack.name}`: {summary_line(stack).split(': ', 1)[1]}"]
    if stack.error:
        out += ["", "```", stack.error.strip(), "```"]
    ordered = stack.ordered_changes()
    groups = (
        ("Destructive", [c for c in ordered if c.destructive]),
        ("Added", [c for c in ordered if not c.destructive and c.action == "create"]),
        ("Changed in place", [c for c in ordered if not c.destructive and c.action == "update"]),
    )
    for title, changes in groups:
        if changes:
            out += ["", f"**{title}**", "", *(_change_line(c) for c in changes)]
    out += _attribute_table([c for c in ordered if c.action in ("update", "replace")])
    if stack.has_changes or stack.status != "unchanged":
        out += _capacity_section(stack.before, stack.after)
        out += _queue_section(stack.before, stack.after)
        out += _cost_section(stack.before, stack.after)
    out += _policy_section(stack, policy_checked)
    return out


def to_markdown(review: Review) -> str:
    out = [MARKER, "## gke-accel plan review", "", f"Base `{review.base_ref}` → head `{review.head_ref}`", ""]
    if review.errors:
        out += ["**Error: the head does not synthesize.**", ""]
    destructive = review.destructive
    if destructive:
        out.append(f"> [!CAUTION]\n> **{len(destructive)} destructive change(s)**:")
        out += [f"> - `{env}`: {c.action} {_who(c)}{' — ' + c.warning if c.warning else ''}" for env, c in destructive]
        out.append("")
    if not review.has_changes and not review.errors:
        out.append("**No changes.** Every stack synthesizes to the same resources, capacity, quotas and cost.")
    out += ["```", *summary_lines(review), "```"]
    for stack in review.stacks:
        if stack.has_changes or stack.new_findings or stack.resolved_findings:
            out += stack_markdown(stack, policy_checked=review.policy_checked)
    if review.notes:
        out += ["", "<sub>" + " · ".join(review.notes) + "</sub>"]
    return "\n".join(out) + "\n"


def _change_dict(change: ResourceChange) -> dict[str, Any]:
    return {
        "address": change.address,
        "type": change.rtype,
        "logical_id": change.logical_id,
        "name": change.name,
        "action": change.action,
        "destructive": change.destructive,
        "accelerator_pool": change.accelerator_pool,
        "recreates_nodes": change.recreates_nodes,
        "warning": change.warning,
        "previous_logical_id": change.previous_logical_id or None,
        "forced_by": [a.path for a in change.replaced_by],
        "attributes": [
            {"path": a.path, "before": a.before, "after": a.after, "effect": a.effect} for a in change.attributes
        ],
        "checkov_skips_added": list(change.skips_added),
        "checkov_skips_removed": list(change.skips_removed),
    }


def to_dict(review: Review, *, fail_on_destroy: bool = False) -> dict[str, Any]:
    def finding(f: Any) -> dict[str, str]:
        return {"check_id": f.check_id, "resource": f.resource, "title": f.title}

    return {
        "base": review.base_ref,
        "head": review.head_ref,
        "has_changes": review.has_changes,
        "destructive": len(review.destructive),
        "exit_code": review.exit_code(fail_on_destroy=fail_on_destroy),
        "summary": summary_lines(review),
        "errors": review.errors,
        "notes": review.notes,
        "policy_checked": review.policy_checked,
        "stacks": [
            {
                "name": s.name,
                "status": s.status,
                "summary": summary_line(s),
                "counts": {a: s.count(a) for a in ("replace", "delete", "create", "update")},
                "error": s.error or None,
                "changes": [_change_dict(c) for c in s.ordered_changes()],
                "before": facts_to_dict(s.before) if s.before else None,
                "after": facts_to_dict(s.after) if s.after else None,
                "policy": {
                    "new": [finding(f) for f in s.new_findings],
                    "resolved": [finding(f) for f in s.resolved_findings],
                },
            }
            for s in review.stacks
        ],
    }


def to_json(review: Review, *, fail_on_destroy: bool = False) -> str:
    return json.dumps(to_dict(review, fail_on_destroy=fail_on_destroy), indent=2, sort_keys=False, default=str) + "\n"
