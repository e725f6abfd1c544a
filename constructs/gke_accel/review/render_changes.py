"""The resource and block changes of one stack as Markdown: change lines, folded groups, the attribute
table (values cut to fit a comment cell)."""

from __future__ import annotations

import json
from typing import Any

from .model import AttributeChange, BlockChange, ResourceChange

MAX_VALUE = 80
FOLD_OVER = 10  # change lists longer than this are folded

_EFFECT_LABEL = {
    "force_new": "forces replacement",
    "identity": "identity: forces replacement",
    "not_updatable": "cannot change in place: replace",
    "recreates_nodes": "recreates every node",
    "replace_trigger": "replace trigger: forces replacement",
    "adds_nodes": "in place: adds the new zones' nodes, keeps the others",
    "removes_nodes": "deletes the nodes in the removed zones",
}


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


def who(change: ResourceChange) -> str:
    return f"`{change.address}`" + (f" ({change.name})" if change.name else "")


def _change_line(change: ResourceChange) -> str:
    verb = {"delete": "destroy", "replace": "replace", "create": "add", "update": "change"}[change.action]
    line = f"- **{verb}** {who(change)}"
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


def _widgets(text: Any) -> int | None:
    try:
        data = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    layout = (data or {}).get("gridLayout") or (data or {}).get("mosaicLayout") or {}
    items = layout.get("widgets", layout.get("tiles")) if isinstance(layout, dict) else None
    return len(items) if isinstance(items, list) else None


def _folded(change: ResourceChange, attr: AttributeChange) -> tuple[str, str] | None:
    """A row no reviewer can read as it is, said in words: a dashboard's escaped JSON as its widget
    count, a Helm chart's generated asset path as "its objects changed"; None to show the values."""
    if attr.path == "dashboard_json":
        a, b = _widgets(attr.before), _widgets(attr.after)
        if a is not None and b is not None:
            return f"{a} widgets", f"{b} widgets" + (" (their queries or titles changed)" if a == b else "")
    if change.rtype == "helm_release" and attr.path == "chart":
        paths = [str(v) for v in (attr.before, attr.after) if v is not None]
        if paths and all(p.startswith("assets/") for p in paths):
            what = "Kueue objects: see **Kueue queues** above" if "queue" in change.logical_id else "its objects"
            return "generated chart", f"chart regenerated ({what})"
    return None


def attribute_table(changes: list[ResourceChange], limit: int | None = None) -> list[str]:
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
        before, after = _folded(change, attr) or _pair(attr.before, attr.after)
        out.append(
            f"| `{change.logical_id}` | `{attr.path}` | {before} | {after} "
            f"| {_EFFECT_LABEL.get(attr.effect or '', 'in place')} |"
        )
    if len(rows) < total:
        out.append(f"| … | {total - len(rows)} more rows in the JSON review | | | |")
    out += ["", "</details>"]
    return out


def change_group(title: str, changes: list[ResourceChange], limit: int | None, *, fold: bool) -> list[str]:
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


def blocks_section(blocks: list[BlockChange]) -> list[str]:
    if not blocks:
        return []
    out = ["", "**Other blocks** (backend, providers, variables, outputs, data sources, locals)", ""]
    for block in blocks:
        verb = {"create": "added", "delete": "removed", "update": "changed"}[block.action]
        paths = ", ".join(f"`{a.path}`" for a in block.attributes[:4]) + (" …" if len(block.attributes) > 4 else "")
        risk = "⚠ **high risk**: " if block.high_risk else ""
        out.append(f"- {block.label} {verb}{' (' + paths + ')' if paths else ''} — {risk}{block.explanation}")
    return out
