"""Render a Review: Markdown for a pull-request comment, and the same content as JSON."""

from __future__ import annotations

import json
from typing import Any

from .facts import facts_to_dict
from .ladder import ladder_section
from .model import AttributeChange, BlockChange, ResourceChange, Review, StackReview
from .tables import capacity_section, cost_section, queue_section

MARKER = "<!-- gke-accel-review -->"  # lets CI find and update its own comment
MAX_VALUE = 80
COMMENT_LIMIT = 65_536  # GitHub's limit on a comment body, in characters
FOLD_OVER = 10  # change lists longer than this are folded
# (change lines per group, attribute rows per stack) at each level of detail; None = all
_LEVELS: tuple[tuple[int | None, int | None], ...] = ((None, None), (40, 150), (15, 0), (0, 0))

_EFFECT_LABEL = {
    "force_new": "forces replacement",
    "identity": "identity: forces replacement",
    "not_updatable": "cannot change in place: replace",
    "recreates_nodes": "recreates every node",
    "replace_trigger": "replace trigger: forces replacement",
    "adds_nodes": "in place: adds the new zones' nodes, keeps the others",
    "removes_nodes": "deletes the nodes in the removed zones",
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
    if stack.blocks:
        risky = sum(1 for b in stack.blocks if b.high_risk)
        line += f"; {_plural(len(stack.blocks), 'other block')} changed" + (f" ({risky} high-risk)" if risky else "")
    if stack.safety:
        line += f"; {_plural(len(stack.safety), 'safety warning')}"
    if not stack.changes and not stack.blocks and stack.facts_changed:
        line += " (capacity, quota or cost figures change)"
    return line


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


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


def _attribute_table(changes: list[ResourceChange], limit: int | None = None) -> list[str]:
    rows: list[tuple[ResourceChange, AttributeChange]] = [(c, a) for c in changes for a in c.attributes]
    if not rows or limit == 0:
        return []
    total = len(rows)
    rows = rows if limit is None else rows[:limit]
    out = [
        "",
        f"<details><summary>Attribute changes ({total})</summary>",
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
    if len(rows) < total:
        out.append(f"| … | {total - len(rows)} more rows in the JSON review | | | |")
    out += ["", "</details>"]
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


def _group(title: str, changes: list[ResourceChange], limit: int | None, *, fold: bool) -> list[str]:
    """One list of changes: folded when long, cut to ``limit`` lines when the comment must shrink."""
    if not changes:
        return []
    shown = changes if limit is None else changes[:limit]
    lines = [_change_line(c) for c in shown]
    if len(shown) < len(changes):
        lines.append(f"- … {len(changes) - len(shown)} more (see the JSON review)")
    if fold and len(changes) > FOLD_OVER:
        return ["", f"<details><summary><b>{title}</b> ({len(changes)})</summary>", "", *lines, "", "</details>"]
    return ["", f"**{title}**", "", *lines]


def _blocks_section(blocks: list[BlockChange]) -> list[str]:
    if not blocks:
        return []
    out = ["", "**Other blocks** (backend, providers, variables, outputs, data sources, locals)", ""]
    for block in blocks:
        verb = {"create": "added", "delete": "removed", "update": "changed"}[block.action]
        paths = ", ".join(f"`{a.path}`" for a in block.attributes[:4]) + (" …" if len(block.attributes) > 4 else "")
        risk = "⚠ **high risk**: " if block.high_risk else ""
        out.append(f"- {block.label} {verb}{' (' + paths + ')' if paths else ''} — {risk}{block.explanation}")
    return out


def stack_markdown(stack: StackReview, *, policy_checked: bool, level: int = 0) -> list[str]:
    """A stack's section: capacity and cost first, then the resource lists (folded when long)."""
    limit, rows = _LEVELS[level]
    out = ["", f"### `{stack.name}`: {summary_line(stack).split(': ', 1)[1]}"]
    if stack.error:
        out += ["", "```", stack.error.strip(), "```"]
    if stack.has_changes or stack.status != "unchanged":
        out += capacity_section(stack.before, stack.after)
        out += queue_section(stack.before, stack.after)
        out += ladder_section(stack.before, stack.after)
        out += cost_section(stack.before, stack.after)
    ordered = stack.ordered_changes()
    out += _group("Destructive", [c for c in ordered if c.destructive], limit, fold=False)
    out += _group(
        "Replaced, nothing lost", [c for c in ordered if not c.destructive and c.action == "replace"], limit, fold=True
    )
    out += _group("Added", [c for c in ordered if not c.destructive and c.action == "create"], limit, fold=True)
    out += _group(
        "Changed in place", [c for c in ordered if not c.destructive and c.action == "update"], limit, fold=True
    )
    out += _blocks_section(stack.blocks)
    out += _attribute_table([c for c in ordered if c.action in ("update", "replace")], rows)
    out += _policy_section(stack, policy_checked)
    return out


def _safety_section(review: Review) -> list[str]:
    items = review.safety
    if not items:
        return []
    out = ["", f"### ⚠ Safety ({len(items)})", ""]
    for env, item in items:
        out.append(f"- `{env}`: **{item.subject}**. {item.consequence} **Instead:** {item.instead}")
    return out


def _render(review: Review, level: int) -> str:
    out = [MARKER, "## gke-accel plan review", "", f"Base `{review.base_ref}` → head `{review.head_ref}`", ""]
    if review.errors:
        out += ["**Error: the head does not synthesize.**", ""]
    destructive = review.destructive
    if destructive:
        out.append(f"> [!CAUTION]\n> **{len(destructive)} destructive change(s)**:")
        shown = destructive if _LEVELS[level][0] is None else destructive[: _LEVELS[level][0] or 10]
        out += [f"> - `{env}`: {c.action} {_who(c)}{' — ' + c.warning if c.warning else ''}" for env, c in shown]
        if len(shown) < len(destructive):
            out.append(f"> - … {len(destructive) - len(shown)} more")
        out.append("")
    if not review.has_changes and not review.errors:
        out.append("**No changes.** Every stack synthesizes to the same resources, capacity, quotas and cost.")
    out += ["```", *summary_lines(review), "```"]
    out += _safety_section(review)
    for stack in review.stacks:
        if stack.has_changes or stack.new_findings or stack.resolved_findings:
            out += stack_markdown(stack, policy_checked=review.policy_checked, level=level)
    if level:
        out += ["", "<sub>Long lists shortened to fit a GitHub comment; the JSON review has every change.</sub>"]
    if review.notes:
        out += ["", "<sub>" + " · ".join(review.notes) + "</sub>"]
    return "\n".join(out) + "\n"


def to_markdown(review: Review, *, limit: int = COMMENT_LIMIT - 1_536) -> str:
    """The comment: everything when it fits in ``limit`` characters, else shorter resource lists
    (summary, safety, capacity and cost always stay), and as a last resort a hard cut. The default
    leaves room for the terraform plan lines CI appends."""
    for level in range(len(_LEVELS)):
        text = _render(review, level)
        if len(text) <= limit:
            return text
    note = "\n\n… cut to fit a GitHub comment: see the JSON review.\n"
    return text[: limit - len(note)] + note


def failure_markdown(message: str, *, base_ref: str = "") -> str:
    """The comment when the review itself fails: it replaces an older, now stale review."""
    head = f"Base `{base_ref}`: the review failed.\n\n" if base_ref else "The review failed.\n\n"
    body = message.strip()[-4000:]
    return f"{MARKER}\n## gke-accel plan review\n\n> [!WARNING]\n> {head}```\n{body}\n```\n"


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
        "safety": len(review.safety),
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
                "blocks": [
                    {
                        "kind": b.kind,
                        "name": b.name,
                        "action": b.action,
                        "high_risk": b.high_risk,
                        "explanation": b.explanation,
                        "attributes": [{"path": a.path, "before": a.before, "after": a.after} for a in b.attributes],
                    }
                    for b in s.blocks
                ],
                "safety": [
                    {"kind": i.kind, "subject": i.subject, "consequence": i.consequence, "instead": i.instead}
                    for i in s.safety
                ],
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
