"""The facts tables of a stack's review: accelerator capacity, team quotas, Kueue queues, monthly cost."""

from __future__ import annotations

from .model import CapacityLine, EnvironmentFacts


def _range(low: int, high: int) -> str:
    return f"{low}" if low == high else f"{low}-{high}"


def capacity_section(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
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


def _money(value: float) -> str:
    return f"${value:,.0f}"


def _delta(value: float) -> str:
    return ("+" if value > 0 else "-" if value < 0 else "±") + _money(abs(value))


def cost_section(before: EnvironmentFacts | None, after: EnvironmentFacts | None) -> list[str]:
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


_QUEUE_KEYS = ("preempts to borrow", "may borrow", "nominal", "lends", "ceiling")


def _queue_parts(text: str) -> dict[str, str]:
    """ "nominal l4 3, v5e-2x4 8; may borrow ...; ..." as {"nominal": "l4 3, v5e-2x4 8", ...}."""
    parts: dict[str, str] = {}
    for part in text.split("; "):
        key = next((k for k in _QUEUE_KEYS if part.startswith(k + " ")), "")
        parts[key or part] = part[len(key) :].strip() if key else ""
    return parts


def queue_lines(team: str, old: str | None, new: str | None, untouched: bool) -> list[str]:
    """One line per team: only what moved (a 250-character cell per side read as one change)."""
    mark = " (not in this diff's teams: its own config is unchanged)" if untouched else ""
    if old is None or new is None:
        return [f"- **{team}**{mark}: {'added' if old is None else 'removed'}: {new or old}"]
    a, b = _queue_parts(old), _queue_parts(new)
    moved = [f"{k} `{a.get(k, '-')}` → `{b.get(k, '-')}`" for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
    return [f"- **{team}**{mark}: " + "; ".join(moved)]


def queue_changes(
    before: EnvironmentFacts | None, after: EnvironmentFacts | None, touched: tuple[str, ...] | None = None
) -> list[str]:
    """Teams whose Kueue queue changes, one line each with what moved; a team whose own config the
    change did not touch is marked (another team's quota or a new pool moved its share)."""
    old, new = (before.queues if before else {}), (after.queues if after else {})
    changed = [t for t in sorted(old.keys() | new.keys()) if old.get(t) != new.get(t)]
    if not changed:
        return []
    out = ["", "**Kueue queues** (per team, what changes; docs/queues.md)", ""]
    for t in changed:
        out += queue_lines(t, old.get(t), new.get(t), touched is not None and t not in touched)
    return out
