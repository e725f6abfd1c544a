"""The trace format (docs/simulate.md): one job per CSV row or YAML list item.

Fields: ``submit`` (time after the start), ``team``, ``kind`` (job | jobset; empty: what ``workload new``
picks for the pool), ``accelerator`` (v5e, l4, ...), ``chips`` (TPU: chips of one slice; GPU: GPUs per pod),
``slices`` (TPU multislice; default 1), ``duration`` (work the job needs), ``priority`` (a priority class
the team may use; empty: the team's default), ``checkpoint`` (interval between checkpoints; empty: none, a
preempted job starts over), ``name`` (optional; default ``j<row>``). Times are durations like ``90m``,
``2h30m``, ``1d``, ``45s`` or a bare number of minutes.

Every mistake is reported at once with the file, line, field, bad value and what is valid.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import ConfigError, ConfigIssue

FIELDS = ("submit", "team", "kind", "accelerator", "chips", "slices", "duration", "priority", "checkpoint", "name")
REQUIRED = ("submit", "team", "accelerator", "duration")
KINDS = ("job", "jobset")
NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
_UNIT = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)d)?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$")
DURATION_HELP = "a duration like 90m, 2h30m, 1d, 45s or a number of minutes"


@dataclass(frozen=True)
class TraceJob:
    name: str
    submit: float  # seconds after the start of the trace
    team: str
    accelerator: str
    duration: float  # seconds of work
    chips: int | None = None
    slices: int = 1
    kind: str | None = None
    priority: str | None = None
    checkpoint: float | None = None  # seconds between checkpoints; None: no checkpoints

    @property
    def line_fields(self) -> dict[str, str]:
        """The job as trace fields (the inverse of parsing)."""
        return {
            "submit": format_duration(self.submit),
            "team": self.team,
            "kind": self.kind or "",
            "accelerator": self.accelerator,
            "chips": "" if self.chips is None else str(self.chips),
            "slices": str(self.slices),
            "duration": format_duration(self.duration),
            "priority": self.priority or "",
            "checkpoint": "" if self.checkpoint is None else format_duration(self.checkpoint),
            "name": self.name,
        }


def parse_duration(text: str) -> float | None:
    """Seconds, or None when ``text`` is not a duration."""
    text = text.strip().lower()
    if not text:
        return None
    try:
        minutes = float(text)
    except ValueError:
        pass
    else:
        return minutes * 60 if minutes >= 0 and minutes == minutes and minutes != float("inf") else None
    m = _DURATION.match(text)
    if not m or not any(m.groups()):
        return None
    return sum(float(v) * s for v, s in zip(m.groups(), _UNIT.values(), strict=True) if v)


def format_duration(seconds: float) -> str:
    """The shortest exact form: ``2h30m``, ``45s``, ``1d``; fractions of a second as ``12.5s``."""
    if seconds != int(seconds):
        return f"{seconds!r}s"
    left, out = int(seconds), ""
    for unit, size in _UNIT.items():
        if left >= size:
            out += f"{left // size}{unit}"
            left %= size
    return out or "0s"


def _int(value: str, low: int) -> int | None:
    try:
        n = int(value)
    except ValueError:
        return None
    return n if n >= low else None


def _job(row: dict[str, Any], where: str, index: int, issues: list[ConfigIssue]) -> TraceJob | None:
    start = len(issues)
    unknown = sorted(str(k) for k in row if k not in FIELDS)
    for key in unknown:
        issues.append(ConfigIssue(f"{where}: {key}", "is not a trace field", ", ".join(FIELDS)))
    values = {k: "" if row.get(k) is None else str(row.get(k)).strip() for k in FIELDS}
    for key in REQUIRED:
        if not values[key]:
            issues.append(
                ConfigIssue(f"{where}: {key}", "is missing", "a value (required fields: " + ", ".join(REQUIRED) + ")")
            )
    times: dict[str, float | None] = {}
    for key in ("submit", "duration", "checkpoint"):
        times[key] = parse_duration(values[key]) if values[key] else None
        if values[key] and times[key] is None:
            issues.append(ConfigIssue(f"{where}: {key}", f"{values[key]!r} is not a duration", DURATION_HELP))
        elif key != "submit" and times[key] == 0:
            issues.append(ConfigIssue(f"{where}: {key}", f"{values[key]!r} is zero", "more than 0"))
    chips = _int(values["chips"], 1) if values["chips"] else None
    if values["chips"] and chips is None:
        issues.append(
            ConfigIssue(f"{where}: chips", f"{values['chips']!r} is not a whole number of 1 or more", "1, 2, 4, 8, ...")
        )
    slices = _int(values["slices"], 1) if values["slices"] else 1
    if slices is None:
        issues.append(
            ConfigIssue(f"{where}: slices", f"{values['slices']!r} is not a whole number of 1 or more", "1 or more")
        )
    if values["kind"] and values["kind"] not in KINDS:
        issues.append(ConfigIssue(f"{where}: kind", f"{values['kind']!r} is not a kind", ", ".join(KINDS)))
    name = values["name"] or f"j{index:04d}"
    if not NAME.match(name):
        issues.append(
            ConfigIssue(
                f"{where}: name",
                f"{name!r} is not a lowercase DNS label of at most 40 characters",
                "e.g. nlp-pretrain-3",
            )
        )
    if len(issues) > start:
        return None
    return TraceJob(
        name=name, submit=times["submit"] or 0.0, team=values["team"], accelerator=values["accelerator"],
        duration=times["duration"] or 0.0, chips=chips, slices=slices or 1, kind=values["kind"] or None,
        priority=values["priority"] or None, checkpoint=times["checkpoint"],
    )  # fmt: skip


def parse_trace(text: str, source: str) -> list[TraceJob]:
    """The jobs of a trace file (CSV unless ``source`` ends in .yaml/.yml), sorted by submit time;
    raises ConfigError with every mistake."""
    issues: list[ConfigIssue] = []
    rows: list[tuple[str, dict[str, Any]]] = []
    if source.endswith((".yaml", ".yml")):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ConfigError(
                [ConfigIssue(source, f"is not YAML ({str(err).splitlines()[0]})", "a list of jobs")]
            ) from None
        data = data.get("jobs") if isinstance(data, dict) else data
        if not isinstance(data, list):
            raise ConfigError([ConfigIssue(source, "has no list of jobs", "a YAML list, or {jobs: [...]}")])
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                issues.append(
                    ConfigIssue(f"{source}: jobs[{i}]", f"{item!r} is not a mapping", "submit: ..., team: ..., ...")
                )
            else:
                rows.append((f"{source}: jobs[{i}]", item))
    else:
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
        for key in header:
            if key not in FIELDS:
                issues.append(ConfigIssue(f"{source}:1: {key}", "is not a trace field", ", ".join(FIELDS)))
        for key in REQUIRED:
            if key not in header:
                issues.append(ConfigIssue(f"{source}:1", f"the header has no {key!r} column", ", ".join(FIELDS)))
        if issues:
            raise ConfigError(issues)
        for row in reader:
            if None in row:
                issues.append(
                    ConfigIssue(f"{source}:{reader.line_num}", "has more values than the header", ", ".join(header))
                )
                continue
            rows.append((f"{source}:{reader.line_num}", {k: v for k, v in row.items() if v is not None}))
    parsed = [(where, _job(row, where, i, issues)) for i, (where, row) in enumerate(rows, 1)]
    jobs = [job for _, job in parsed if job is not None]
    seen: set[str] = set()
    for i, (where, row) in enumerate(rows, 1):
        name = str(row.get("name") or "").strip() or f"j{i:04d}"
        if name in seen:
            issues.append(ConfigIssue(f"{where}: name", f"{name!r} is used twice", "a name per job"))
        seen.add(name)
    if not rows and not issues:
        issues.append(ConfigIssue(source, "has no jobs", "one job per row"))
    if issues:
        raise ConfigError(issues)
    return sorted(jobs, key=lambda j: (j.submit, j.name))


def read_trace(path: Path) -> list[TraceJob]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(
            [ConfigIssue(str(path), f"cannot be read ({err.__class__.__name__})", "a CSV or YAML trace")]
        ) from None
    return parse_trace(text, str(path))


def to_csv(jobs: Iterable[TraceJob]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for job in jobs:
        writer.writerow(job.line_fields)
    return out.getvalue()


def to_yaml(jobs: Iterable[TraceJob]) -> str:
    items = [{k: v for k, v in j.line_fields.items() if v != ""} for j in jobs]
    return yaml.safe_dump({"jobs": items}, sort_keys=False)


assert {f.name for f in fields(TraceJob)} == set(FIELDS)
