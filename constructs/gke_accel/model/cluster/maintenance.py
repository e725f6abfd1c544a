"""The maintenance window and exclusions: RFC 3339 times with an offset, a recurrence GKE can
evaluate, and the availability GKE requires.

GKE's maintenance-window docs: "You must allow at least 48 hours of maintenance availability in a
32-day rolling window. Only contiguous availability windows of at least four hours are considered."
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from gke_accel.model.cluster.spec import MaintenanceSpec
from gke_accel.model.core.errors import IssueCollector

MIN_HOURS_PER_32_DAYS = 48
MIN_WINDOW_HOURS = 4
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})")
_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_BYDAY = re.compile(r"[+-]?\d{0,2}(MO|TU|WE|TH|FR|SA|SU)")
EXAMPLE = "e.g. 2025-01-04T03:00:00Z or 2025-01-04T03:00:00+01:00"


def parse_rfc3339(value: str, path: str, issues: IssueCollector) -> datetime | None:
    """A timezone-aware time, or None after recording why ``value`` is not RFC 3339 with an offset."""
    if not _RFC3339.fullmatch(value):
        naive = re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?(\.\d+)?", value) is not None
        what = "has no time zone offset (GKE rejects it at plan)" if naive else "is not an RFC 3339 time"
        issues.bad(path, value, what, EXAMPLE)
        return None
    text = value.upper().replace("Z", "+00:00")
    if "." in text:  # Python parses at most microseconds
        head, _, tail = text.partition(".")
        digits = re.match(r"\d+", tail)
        frac = digits.group(0) if digits else ""
        text = f"{head}.{(frac + '000000')[:6]}{tail[len(frac) :]}"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        issues.bad(path, value, "is not a valid date and time", EXAMPLE)
        return None


def _rrule(text: str) -> dict[str, str] | None:
    parts: dict[str, str] = {}
    for item in text.split(";"):
        key, sep, val = item.partition("=")
        if not sep or not key or not val or key in parts:
            return None
        parts[key] = val
    return parts if "FREQ" in parts else None


def _occurrences_per_32_days(rule: dict[str, str]) -> int | None:
    """The fewest windows any 32 consecutive days hold, or None when the rule is not understood."""
    interval_text = rule.get("INTERVAL", "1")
    if not interval_text.isdigit() or not 1 <= int(interval_text) <= 366:
        return None
    interval = int(interval_text)
    freq = rule["FREQ"]
    if freq == "DAILY":
        period, active = interval, {0}
    elif freq == "WEEKLY":
        days = rule.get("BYDAY", "")
        found = [_BYDAY.fullmatch(d) for d in days.split(",")] if days else []
        if days and not all(found):
            return None
        active = {_DAYS.index(m.group(1)) for m in found if m} or {0}
        period = 7 * interval
    elif freq == "MONTHLY":
        return 1 if interval == 1 else 0
    elif freq == "YEARLY":
        return 0
    else:
        return None  # HOURLY and finer: treated as unknown, GKE decides
    return min(sum(1 for d in range(start, start + 32) if d % period in active) for start in range(period))


def check_maintenance(spec: MaintenanceSpec, issues: IssueCollector) -> None:
    path = "cluster.maintenance"
    start = parse_rfc3339(spec.start_time, f"{path}.start_time", issues)
    end = parse_rfc3339(spec.end_time, f"{path}.end_time", issues)
    rule = _rrule(spec.recurrence)
    if rule is None:
        issues.bad(f"{path}.recurrence", spec.recurrence, "is not an RFC 5545 RRULE", "e.g. FREQ=WEEKLY;BYDAY=SA,SU")
    if start is not None and end is not None:
        length = end - start
        hours = length / timedelta(hours=1)
        if length <= timedelta(0):
            issues.bad(f"{path}.end_time", spec.end_time, "must be after start_time", f"later than {spec.start_time}")
        elif hours < MIN_WINDOW_HOURS:
            issues.bad(
                f"{path}.end_time",
                spec.end_time,
                f"makes a {hours:g}-hour window; GKE counts only windows of at least {MIN_WINDOW_HOURS} hours",
                f"at least {MIN_WINDOW_HOURS} hours after start_time",
            )
        elif rule is not None:
            count = _occurrences_per_32_days(rule)
            if count is not None and count * min(hours, 24 * 32) < MIN_HOURS_PER_32_DAYS:
                issues.bad(
                    f"{path}.recurrence",
                    spec.recurrence,
                    f"with {hours:g}-hour windows allows {count * hours:g} hours of maintenance in some 32 days; "
                    f"GKE requires at least {MIN_HOURS_PER_32_DAYS}",
                    "more or longer windows, e.g. FREQ=WEEKLY;BYDAY=SA,SU with 8-hour windows",
                )
    seen: set[str] = set()
    for i, ex in enumerate(spec.exclusions):
        p = f"{path}.exclusions[{i}]"
        if ex.name in seen:
            issues.bad(f"{p}.name", ex.name, "is used twice", "unique names")
        seen.add(ex.name)
        s = parse_rfc3339(ex.start_time, f"{p}.start_time", issues)
        if ex.end_time is None:  # allowed only with end_time_behavior: model/lifecycle/rules.py
            continue
        e = parse_rfc3339(ex.end_time, f"{p}.end_time", issues)
        if s is None or e is None:
            continue
        if e <= s:
            issues.bad(f"{p}.end_time", ex.end_time, "must be after start_time", f"later than {ex.start_time}")
