"""The trace format (docs/simulate.md): one job per CSV row or YAML list item.

Fields: ``submit`` (time after the start), ``team``, ``kind`` (job | jobset | deployment; empty: what
``workload new`` picks for the pool), ``accelerator`` (v5e, l4, ...), ``chips`` (TPU: chips of one slice;
GPU: GPUs per pod; deployment: accelerators of one replica), ``slices`` (TPU multislice; default 1),
``duration`` (work the job needs), ``priority`` (a priority class the team may use; empty: the team's
default), ``checkpoint`` (interval between checkpoints; empty: none, a preempted job starts over),
``replicas`` (deployment rows only), ``name`` (optional for jobs, default ``j<row>``). Times are durations
like ``90m``, ``2h30m``, ``1d``, ``45s`` or a bare number of minutes.

Serving (``kind: deployment``): the rows with one ``name`` are one Deployment (a model server, made as
``workload new --kind deployment`` makes it); each row sets its replica count (``replicas``, 0 scales it
to zero) from its ``submit`` on, until the next row of that name. ``duration`` is optional on such a row:
given, the count holds that long and the Deployment then scales to 0 (the next row of the name may not
start earlier). The rows of one Deployment agree on team, accelerator, chips and priority; it takes no
``slices`` above 1 and no ``checkpoint`` (a server keeps no work to lose: a preempted replica is an
outage, not lost work). A Deployment still up at the end of the trace runs until the run's horizon.

Every mistake is reported at once with the file, line, field, bad value and what is valid.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import ConfigError, ConfigIssue
from gke_accel.model.core.input_files import MAX_TRACE_BYTES, MAX_TRACE_JOBS, csv_rows, parse_yaml, read_text
from gke_accel.model.core.show import show
from gke_accel.simulate import trace_yaml
from gke_accel.simulate.durations import DURATION_HELP, format_duration, parse_duration

FIELDS = ("submit", "team", "kind", "accelerator", "chips", "slices", "duration", "priority", "checkpoint", "replicas",
          "name")  # fmt: skip
REQUIRED = ("submit", "team", "accelerator")  # and duration for a job or jobset, name and replicas for a deployment
KINDS = ("job", "jobset", "deployment")
DEPLOYMENT = "deployment"
SAME = ("team", "accelerator", "chips", "priority")  # fields every row of one Deployment shares
NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
MAX_SECONDS = 366 * 86400.0  # any time in a trace or a flag: at most a simulated year
MAX_SHOWN = "366d (a simulated year)"
MAX_VALUE = 253  # characters of any field (a DNS subdomain's length; names are labels of 63)
MAX_CHIPS = 100_000  # chips or GPUs of one job, slices of one job: far above any pool
MAX_TRACE_VALUES = MAX_TRACE_JOBS * 25  # YAML values of a trace after alias expansion (10 fields a job)


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
    replicas: int | None = None  # deployment: the replica count from ``submit`` on (else None)

    @property
    def serving(self) -> bool:
        return self.kind == DEPLOYMENT

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
            "duration": "" if self.serving and not self.duration else format_duration(self.duration),
            "priority": self.priority or "",
            "checkpoint": "" if self.checkpoint is None else format_duration(self.checkpoint),
            "replicas": "" if self.replicas is None else str(self.replicas),
            "name": self.name,
        }


def _field(key: Any) -> str:
    """A field name as the file has it, cut and quoted only when it would not read as one."""
    text = str(key)
    return text if text.isprintable() and len(text) <= 40 else show(key)


def _int(value: str, low: int) -> int | None:
    if len(value) > 12:
        return None
    try:
        n = int(value)
    except ValueError:
        return None
    return n if low <= n <= MAX_CHIPS else None


def _job(row: dict[str, Any], where: str, index: int, issues: list[ConfigIssue]) -> TraceJob | None:
    start = len(issues)
    unknown = sorted(str(k) for k in row if k not in FIELDS)
    for key in unknown:
        issues.append(ConfigIssue(f"{where}: {_field(key)}", "is not a trace field", ", ".join(FIELDS)))
    values: dict[str, str] = {}
    bad: set[str] = set()  # refused here: not "missing" too
    for k in FIELDS:
        raw = row.get(k)
        if isinstance(raw, (dict, list)):  # a YAML mapping or list where a value belongs
            issues.append(ConfigIssue(f"{where}: {k}", f"{show(raw)} is not a single value", "a string or number"))
            raw = None
            bad.add(k)
        elif isinstance(raw, float) and not math.isfinite(raw):
            issues.append(ConfigIssue(f"{where}: {k}", f"{show(raw)} is not a finite number", "a finite number"))
            raw = None
            bad.add(k)
        elif raw is not None and len(str(raw)) > MAX_VALUE:
            issues.append(ConfigIssue(f"{where}: {k}", f"{show(str(raw))} is longer than {MAX_VALUE} characters",
                                      "a name, number or duration"))  # fmt: skip
            raw = None
            bad.add(k)
        values[k] = "" if raw is None else str(raw).strip()
    serving = values["kind"] == DEPLOYMENT
    for key in REQUIRED:
        if not values[key] and key not in bad:
            issues.append(
                ConfigIssue(f"{where}: {key}", "is missing", "a value (required fields: " + ", ".join(REQUIRED) + ")")
            )
    for key in ("name", "replicas") if serving else ("duration",):
        if not values[key] and key not in bad:
            need = "a deployment" if serving else "a job or jobset"
            issues.append(ConfigIssue(f"{where}: {key}", "is missing", f"a value (required for {need})"))
    times: dict[str, float | None] = {}
    for key in ("submit", "duration", "checkpoint"):
        times[key] = parse_duration(values[key]) if values[key] else None
        if values[key] and times[key] is None:
            issues.append(ConfigIssue(f"{where}: {key}", f"{show(values[key])} is not a duration", DURATION_HELP))
        elif (seconds := times[key]) is not None and seconds > MAX_SECONDS:
            issues.append(ConfigIssue(f"{where}: {key}", f"{show(values[key])} is more than {MAX_SHOWN}",
                                      f"at most {MAX_SHOWN}"))  # fmt: skip
            times[key] = None
        elif key != "submit" and times[key] == 0:
            issues.append(ConfigIssue(f"{where}: {key}", f"{show(values[key])} is zero", "more than 0"))
    chips = _int(values["chips"], 1) if values["chips"] else None
    if values["chips"] and chips is None:
        issues.append(ConfigIssue(f"{where}: chips", f"{show(values['chips'])} is not a whole number from 1 to "
                                  f"{MAX_CHIPS}", "1, 2, 4, 8, ..."))  # fmt: skip
    slices = _int(values["slices"], 1) if values["slices"] else 1
    if slices is None:
        issues.append(ConfigIssue(f"{where}: slices", f"{show(values['slices'])} is not a whole number from 1 to "
                                  f"{MAX_CHIPS}", "1 or more"))  # fmt: skip
    if values["kind"] and values["kind"] not in KINDS:
        issues.append(ConfigIssue(f"{where}: kind", f"{show(values['kind'])} is not a kind", ", ".join(KINDS)))
    replicas = _int(values["replicas"], 0) if values["replicas"] else None
    if values["replicas"] and not serving:
        issues.append(ConfigIssue(f"{where}: replicas", f"{show(values['replicas'])} is set on a "
                                  f"{values['kind'] or 'job'} row", "replicas only with kind deployment"))  # fmt: skip
    elif values["replicas"] and replicas is None:
        issues.append(ConfigIssue(f"{where}: replicas", f"{show(values['replicas'])} is not a whole number from 0 "
                                  f"to {MAX_CHIPS}", "0 (scaled to zero), 1, 2, ..."))  # fmt: skip
    if serving and slices is not None and slices > 1:
        issues.append(ConfigIssue(f"{where}: slices", f"{slices} slices for a deployment",
                                  "1 (a replica is one pod; a multislice server is not a Deployment)"))  # fmt: skip
    if serving and values["checkpoint"]:
        issues.append(ConfigIssue(f"{where}: checkpoint", f"{show(values['checkpoint'])} on a deployment row",
                                  "empty (a server keeps no work to lose)"))  # fmt: skip
    name = values["name"] or f"j{index:04d}"
    if not NAME.match(name):
        issues.append(
            ConfigIssue(
                f"{where}: name",
                f"{show(name)} is not a lowercase DNS label of at most 40 characters",
                "e.g. nlp-pretrain-3",
            )
        )
    if len(issues) > start:
        return None
    return TraceJob(
        name=name, submit=times["submit"] or 0.0, team=values["team"], accelerator=values["accelerator"],
        duration=times["duration"] or 0.0, chips=chips, slices=slices or 1, kind=values["kind"] or None,
        priority=values["priority"] or None, checkpoint=times["checkpoint"], replicas=replicas,
    )  # fmt: skip


# YAML 1.1 (PyYAML) reads a plain 1:30:00 as the base-60 integer 5400 (and 1:30.5 as a float): a time
# written as H:MM:SS would become that many minutes. Its resolver's patterns (yaml/resolver.py).
def parse_trace(text: str, source: str) -> list[TraceJob]:
    """The jobs of a trace file (CSV unless ``source`` ends in .yaml/.yml), sorted by submit time;
    raises ConfigError with every mistake. At most MAX_TRACE_JOBS jobs; YAML with the config reader's
    guards (no duplicate keys, alias bombs or deep nesting)."""
    issues: list[ConfigIssue] = []
    rows: list[tuple[str, dict[str, Any]]] = []
    if source.endswith((".yaml", ".yml")):
        data = parse_yaml(text, source, max_values=MAX_TRACE_VALUES)
        issues.extend(trace_yaml.base60_times(text, source))
        data = data.get("jobs") if isinstance(data, dict) else data
        if not isinstance(data, list):
            raise ConfigError([ConfigIssue(source, "has no list of jobs", "a YAML list, or {jobs: [...]}")])
        if len(data) > MAX_TRACE_JOBS:
            raise ConfigError([ConfigIssue(source, f"has {len(data)} jobs", f"at most {MAX_TRACE_JOBS}")])
        at = trace_yaml.item_lines(text)
        for i, item in enumerate(data):
            where = f"{source}:{at[i]}: jobs[{i}]" if i < len(at) else f"{source}: jobs[{i}]"
            if not isinstance(item, dict):
                issues.append(ConfigIssue(where, f"{show(item)} is not a mapping", "submit: ..., team: ..., ..."))
            else:
                rows.append((where, item))
    else:
        raw_header, lines = csv_rows(text, source, max_rows=MAX_TRACE_JOBS)
        header = [key.strip() for key in raw_header]  # `submit, team` : spaces after the commas
        for key in header:
            if key not in FIELDS:
                issues.append(ConfigIssue(f"{source}:1: {_field(key)}", "is not a trace field", ", ".join(FIELDS)))
        for key in sorted({k for k in header if header.count(k) > 1}):
            issues.append(ConfigIssue(f"{source}:1: {_field(key)}", f"names {header.count(key)} columns",
                                      "one column per field"))  # fmt: skip
        for key in REQUIRED:
            if key not in header:
                issues.append(ConfigIssue(f"{source}:1", f"the header has no {key!r} column", ", ".join(FIELDS)))
        if issues:
            raise ConfigError(issues)
        for line, row in lines:
            if None in row:
                issues.append(ConfigIssue(f"{source}:{line}", "has more values than the header", ", ".join(header)))
                continue
            if not any(str(v).strip() for v in row.values() if v is not None):  # `,,,,`: a spreadsheet's empty row
                continue
            rows.append((f"{source}:{line}", {k.strip(): v for k, v in row.items() if v is not None}))
    parsed = [(where, _job(row, where, i, issues)) for i, (where, row) in enumerate(rows, 1)]
    jobs = [job for _, job in parsed if job is not None]
    seen: dict[str, bool] = {}  # name -> a deployment's
    for i, (where, row) in enumerate(rows, 1):
        raw = row.get("name")
        name = (str(raw).strip() if isinstance(raw, (str, int, float)) else "") or f"j{i:04d}"
        serving = str(row.get("kind") or "").strip() == DEPLOYMENT
        if name in seen and not (serving and seen[name]):
            valid = "a name per job (rows of one deployment share theirs)"
            issues.append(ConfigIssue(f"{where}: name", f"{show(name)} is used twice", valid))
        seen.setdefault(name, serving)
    _check_deployments([(where, job) for where, job in parsed if job is not None and job.serving], issues)
    if not rows and not issues:
        issues.append(ConfigIssue(source, "has no jobs", "one job per row"))
    if issues:
        raise ConfigError(issues)
    return sorted(jobs, key=lambda j: (j.submit, j.name))


def _check_deployments(rows: list[tuple[str, TraceJob]], issues: list[ConfigIssue]) -> None:
    """The rows of each Deployment agree on ``SAME``, and each starts after the one before it ended."""
    by_name: dict[str, list[tuple[str, TraceJob]]] = {}
    for where, job in rows:
        by_name.setdefault(job.name, []).append((where, job))
    for group in by_name.values():
        first_where, first = group[0]
        for where, job in group[1:]:
            for key in SAME:
                if getattr(job, key) != getattr(first, key):
                    mine, theirs = (
                        ("empty" if v is None else show(v)) for v in (getattr(job, key), getattr(first, key))
                    )
                    issues.append(ConfigIssue(f"{where}: {key}", f"{mine} differs from {theirs} ({first_where})",
                                              f"the same {key} on every row of deployment {job.name}"))  # fmt: skip
        ordered = sorted(group, key=lambda r: r[1].submit)
        for (w0, a), (w1, b) in itertools.pairwise(ordered):
            if b.submit == a.submit:
                issues.append(ConfigIssue(f"{w1}: submit", f"{format_duration(b.submit)} is also the submit of {w0}",
                                          f"one row per time for deployment {b.name}"))  # fmt: skip
            elif a.duration and b.submit < a.submit + a.duration:
                issues.append(ConfigIssue(f"{w1}: submit", f"{format_duration(b.submit)} is before {w0} ends "
                                          f"({format_duration(a.submit + a.duration)})",
                                          f"at least {format_duration(a.submit + a.duration)}, or no duration "
                                          f"on {w0}"))  # fmt: skip


def scale_steps(rows: Iterable[TraceJob]) -> list[tuple[float, int]]:
    """A Deployment's replica counts over time from its rows: (from, replicas), sorted, a row with a
    ``duration`` followed by 0 at its end (unless the next row starts then)."""
    steps: dict[float, int] = {}
    for job in sorted(rows, key=lambda j: j.submit):
        steps[job.submit] = job.replicas or 0
        if job.duration:
            steps.setdefault(job.submit + job.duration, 0)
    return sorted(steps.items())


def read_trace(path: Path) -> list[TraceJob]:
    """A trace file through the shared input guards (a regular file, MAX_TRACE_BYTES, UTF-8, BOM dropped)."""
    return parse_trace(read_text(path, limit=MAX_TRACE_BYTES, what="a trace"), str(path))


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
