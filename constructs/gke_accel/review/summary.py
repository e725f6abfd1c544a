"""One line per stack of a Review: what the PR comment's summary block and the JSON review show."""

from __future__ import annotations

from .model import Review, StackReview

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
    broken = sum(1 for w in stack.workloads if w.after == "does not schedule")
    if broken:
        line += f"; {_plural(broken, 'workload')} stop scheduling"
    if not stack.changes and not stack.blocks and stack.facts_changed:
        line += " (capacity, quota or cost figures change)"
    return line


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def summary_lines(review: Review) -> list[str]:
    return [summary_line(s) for s in review.stacks]
