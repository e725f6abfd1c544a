"""The review's capacity-ladder rule: a rung removed from a ladder, added, or the rungs reordered
(model/capacity; docs/capacity.md). The ComputeClass, the pools' class labels and the flavor order
all follow the ladder, so such a change moves running capacity: jobs are admitted elsewhere from
then on, pools leave the class, and with active migration GKE moves pods to the new first rung."""

from __future__ import annotations

from typing import Any

from .model import EnvironmentFacts


def ladder_facts(plan: Any, ladders_of: Any) -> dict[str, tuple[str, ...]]:
    """Shape -> its rungs in order, from ``model.capacity.of_environment.ladders_of``."""
    return {ladder.shape: tuple(r.text for r in ladder.rungs) for ladder in ladders_of(plan)}


def ladder_changes(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
    """One sentence per change of a ladder, in words."""
    old = before.ladders if before else {}
    new = after.ladders if after else {}
    out: list[str] = []
    for shape in sorted(old.keys() | new.keys()):
        a, b = old.get(shape), new.get(shape)
        if a == b:
            continue
        if a is None:
            out.append(f"ladder `{shape}` added: {' → '.join(b or ())}")
            continue
        if b is None:
            out.append(
                f"ladder `{shape}` removed: its ComputeClass goes, its pools lose the class label and taint, "
                "workloads selecting the class stay Pending"
            )
            continue
        gone = [r for r in a if r not in b]
        added = [r for r in b if r not in a]
        for r in gone:
            out.append(f"ladder `{shape}`: rung `{r}` removed: its pools leave the class, its Kueue flavor goes")
        for r in added:
            out.append(f"ladder `{shape}`: rung `{r}` added at position {b.index(r) + 1}")
        kept_a = [r for r in a if r in b]
        kept_b = [r for r in b if r in a]
        if kept_a != kept_b:
            out.append(
                f"ladder `{shape}` reordered: {' → '.join(kept_a)} becomes {' → '.join(kept_b)}; new jobs are "
                f"admitted on `{kept_b[0]}` first"
            )
    return out


def ladder_section(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
    changes = ladder_changes(before, after)
    if not changes:
        return []
    return ["", "**Capacity ladders** (docs/capacity.md)", "", *[f"- {c}" for c in changes]]
