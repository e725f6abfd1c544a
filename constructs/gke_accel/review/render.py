"""Render a Review: Markdown for a pull-request comment, and the same content as JSON.

The summary lines are ``summary``'s, the change lists ``render_changes``', the JSON ``render_json``'s;
this module lays out the comment and shortens it to fit GitHub's limit."""

from __future__ import annotations

from .ladder import ladder_section
from .model import Review, StackReview
from .render_changes import attribute_table, blocks_section, change_group, who
from .render_json import to_dict, to_json
from .render_replay import replay_section
from .summary import summary_line, summary_lines
from .tables import capacity_section, cost_section, queue_changes

MARKER = "<!-- gke-accel-review -->"  # lets CI find and update its own comment
COMMENT_LIMIT = 65_536  # GitHub's limit on a comment body, in characters
# (change lines per group, attribute rows per stack) at each level of detail; None = all
_LEVELS: tuple[tuple[int | None, int | None], ...] = ((None, None), (40, 150), (15, 0), (0, 0))


def _policy_section(stack: StackReview, checked: bool) -> list[str]:
    if not checked:
        return []
    if not stack.new_findings and not stack.resolved_findings:
        return ["", "**Policy** (checkov): no new findings."]
    out = ["", f"**Policy** (checkov): {len(stack.new_findings)} new, {len(stack.resolved_findings)} resolved", ""]
    out += [f"- new: `{f.check_id}` {f.resource}: {f.title}" for f in stack.new_findings]
    out += [f"- resolved: `{f.check_id}` {f.resource}: {f.title}" for f in stack.resolved_findings]
    return out


def workload_section(stack: StackReview) -> list[str]:
    """The workloads a team would submit that stop scheduling or move (review/workloads.py)."""
    if not stack.workloads:
        return []
    out = [
        "",
        "**Workloads** (what `gke-accel workload new` writes per team and accelerator, and examples/, "
        "linted against base and head)",
        "",
    ]
    for w in stack.workloads:
        team = f"{w.team}: " if w.team else ""
        mark = " (team not in this diff: its own config is unchanged)" if w.untouched else ""
        if w.after == "does not schedule":
            now = f"schedules on {w.before} today, not after this change"
            out.append(f"- ✖ {team}`{w.workload}`{mark}: {now}: {w.reason}")
        else:
            out.append(f"- {team}`{w.workload}`{mark}: {w.before} → {w.after} ({w.reason})")
    return out


def stack_markdown(stack: StackReview, *, policy_checked: bool, level: int = 0) -> list[str]:
    """A stack's section: capacity and cost first, then the resource lists (folded when long)."""
    limit, rows = _LEVELS[level]
    out = ["", f"### `{stack.name}`: {summary_line(stack).split(': ', 1)[1]}"]
    if stack.error:
        out += ["", "```", stack.error.strip(), "```"]
    if stack.has_changes or stack.status != "unchanged" or _replayed(stack):
        out += capacity_section(stack.before, stack.after)
        out += workload_section(stack)
        out += queue_changes(stack.before, stack.after, stack.touched_teams)
        out += replay_section(stack.replay)
        out += ladder_section(stack.before, stack.after)
        out += cost_section(stack.before, stack.after)
    ordered = stack.ordered_changes()
    out += change_group("Destructive", [c for c in ordered if c.destructive], limit, fold=False)
    out += change_group(
        "Replaced, nothing lost", [c for c in ordered if not c.destructive and c.action == "replace"], limit, fold=True
    )
    out += change_group("Added", [c for c in ordered if not c.destructive and c.action == "create"], limit, fold=True)
    out += change_group(
        "Changed in place", [c for c in ordered if not c.destructive and c.action == "update"], limit, fold=True
    )
    out += blocks_section(stack.blocks)
    out += attribute_table([c for c in ordered if c.action in ("update", "replace")], rows)
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


def _replayed(stack: StackReview) -> bool:
    """A replay ran or was skipped (``review --replay always`` on an unchanged stack)."""
    return stack.replay is not None and stack.replay.status != "not needed"


def _render(review: Review, level: int) -> str:
    out = [MARKER, "## gke-accel plan review", "", f"Base `{review.base_ref}` → head `{review.head_ref}`", ""]
    if review.errors:
        out += ["**Error: the head does not synthesize.**", ""]
    destructive = review.destructive
    if destructive:
        out.append(f"> [!CAUTION]\n> **{len(destructive)} destructive change(s)**:")
        shown = destructive if _LEVELS[level][0] is None else destructive[: _LEVELS[level][0] or 10]
        out += [f"> - `{env}`: {c.action} {who(c)}{' — ' + c.warning if c.warning else ''}" for env, c in shown]
        if len(shown) < len(destructive):
            out.append(f"> - … {len(destructive) - len(shown)} more")
        out.append("")
    if not review.has_changes and not review.errors:
        out.append("**No changes.** Every stack synthesizes to the same resources, capacity, quotas and cost.")
    out += ["```", *summary_lines(review), "```"]
    broken = [(env, w) for env, w in review.workloads if w.after == "does not schedule"]
    if broken:
        out += ["", f"> [!WARNING]\n> **{len(broken)} workload(s) that schedule today will not after this change**:"]
        out += [f"> - `{env}`: {w.team + ': ' if w.team else ''}`{w.workload}`: {w.reason}" for env, w in broken]
    out += _safety_section(review)
    for stack in review.stacks:
        if stack.has_changes or stack.new_findings or stack.resolved_findings or _replayed(stack):
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


__all__ = [
    "COMMENT_LIMIT",
    "MARKER",
    "failure_markdown",
    "stack_markdown",
    "summary_line",
    "summary_lines",
    "to_dict",
    "to_json",
    "to_markdown",
]
