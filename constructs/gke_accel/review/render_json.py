"""A Review as JSON: every change of every stack, the facts before and after, blocks, safety, policy
(the machine-readable twin of the PR comment)."""

from __future__ import annotations

import json
from typing import Any

from .facts import facts_to_dict
from .model import ResourceChange, Review
from .summary import summary_line, summary_lines


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
        "workloads_broken": sum(1 for _, w in review.workloads if w.after == "does not schedule"),
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
                "workloads": [
                    {
                        "team": w.team,
                        "workload": w.workload,
                        "before": w.before,
                        "after": w.after,
                        "reason": w.reason,
                        "team_untouched": w.untouched,
                    }
                    for w in s.workloads
                ],
                "touched_teams": None if s.touched_teams is None else list(s.touched_teams),
                "replay": s.replay.as_dict() if s.replay is not None else None,
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
