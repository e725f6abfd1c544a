"""The workloads a team would submit, linted against the base and the head of a review.

For every team and accelerator of the base environment, what ``gke-accel workload new`` writes (its
default kind, and a Deployment: serving), and every manifest under ``examples/``, are checked with
``gke-accel lint``'s scheduling model against both revisions' plans. A workload that schedules on the
base and not on the head, or that moves to other pools or another capacity kind (on-demand, Spot,
flex-start, queued), is listed with the reason in one line. Both plans are loaded with the head's code
(one lint model); a base config the head's code cannot load is noted and skipped.

Teams the pull request did not touch (their spec and queue entry are equal on both sides) are marked:
a change to another team's quota or a new pool can move their share (docs/queues.md: flavors fill in
order), which is easy to miss in a diff that never mentions them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .model import WorkloadChange

IMAGE = "us-docker.pkg.dev/{project}/review/workload:1"  # any image: lint's scheduling verdict ignores it
KINDS: tuple[str | None, ...] = (None, "deployment")  # workload new's default kind, and serving


@dataclass(frozen=True)
class _Candidate:
    label: str  # how a reviewer recreates it
    team: str  # "" for an example outside any team's namespace
    texts: tuple[tuple[str, str], ...]  # (source, YAML) for lint


def load_plans(config_dir: Path, names: list[str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Each environment of ``config_dir`` loaded with the code running now; notes for those that fail."""
    from gke_accel.model import ConfigError
    from gke_accel.model.environment.config_files import environment_files, load_environments

    plans: dict[str, Any] = {}
    notes: list[str] = []
    for name in environment_files(config_dir):
        if names and name not in names:
            continue
        try:
            plans[name] = load_environments(config_dir, [name])[0]
        except ConfigError as err:
            notes.append(
                f"workloads of {name} not compared: its config does not load with the head's code "
                f"({len(err.issues)} issue(s))"
            )
    return plans, notes


def touched_teams(base: Any, head: Any) -> set[str]:
    """Teams whose own spec or queue entry differs between the two plans (added and removed included)."""

    def specs(plan: Any) -> dict[str, Any]:
        queues = plan.spec.queues.teams if plan.spec.queues is not None else {}
        return {t.name: (t, queues.get(t.name)) for t in plan.spec.teams}

    before, after = specs(base), specs(head)
    return {name for name in set(before) | set(after) if before.get(name) != after.get(name)}


def _generated(plan: Any) -> list[_Candidate]:
    from gke_accel.catalog import load_catalog
    from gke_accel.model import ConfigError
    from gke_accel.model.teams.accelerators import accelerator_key
    from gke_accel.workloads.generate import WorkloadRequest, new_workload

    catalog = load_catalog()
    offered = {p.accelerator for p in plan.pools}
    out: list[_Candidate] = []
    for team in plan.spec.teams:
        for accel, amount in team.accelerators.items():
            key = accelerator_key(accel, catalog)
            if amount <= 0 or key is None or key[1] not in offered:
                continue
            for kind in KINDS:
                name = f"{team.name}-{accel}-{kind or 'job'}"
                req = WorkloadRequest(
                    name=name,
                    team=team.name,
                    kind=kind,  # type: ignore[arg-type]
                    accelerator=accel,
                    image=IMAGE.format(project=plan.spec.project_id),
                    checkpoints=kind is None,
                )
                try:
                    objs = new_workload(plan, req)
                except ConfigError:
                    continue  # not something this team can generate here (priority class, share)
                flags = f" --kind {kind}" if kind else ""
                label = f"workload new --team {team.name} --accelerator {accel}{flags}"
                text = yaml.safe_dump_all(objs, sort_keys=False)
                out.append(_Candidate(label, team.name, ((label, text),)))
    return out


def _examples(examples: Path | None, plan: Any) -> list[_Candidate]:
    if examples is None or not examples.is_dir():
        return []
    owners = {t.namespace or t.name: t.name for t in plan.spec.teams}
    out = []
    for path in sorted(examples.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
        namespace = next((d.get("metadata", {}).get("namespace") for d in docs), None)
        out.append(_Candidate(f"examples/{path.name}", owners.get(namespace or "", ""), ((path.name, text),)))
    return out


def _capacity_kind(plan: Any, pool: str) -> str:
    p = next((p for p in plan.pools if p.name == pool), None)
    if p is None:
        return "?"
    kind = str(p.consumption)  # spot, flex-start, queued, reservation, on-demand (the pool plan's own)
    return "Spot" if kind == "spot" else kind


def _where(plan: Any, pools: Iterable[str]) -> str:
    return ", ".join(f"{p} ({_capacity_kind(plan, p)})" for p in pools) or "(no pool)"


def _verdict(plan: Any, cand: _Candidate) -> Any | None:
    from gke_accel.workloads.lint import lint_texts

    report = lint_texts(plan, list(cand.texts))
    return report.verdicts[0] if report.verdicts else None


def _reason(verdict: Any) -> str:
    first = verdict.errors[0]
    line = f"[{first.rule}] {first.message}"
    more = len(verdict.errors) - 1
    return line + (f" (+{more} more)" if more else "")


def workload_changes(base: Any, head: Any, examples: Path | None = None) -> list[WorkloadChange]:
    """Each workload a team would submit that schedules on ``base`` and not on ``head``, or moves pool
    or capacity kind; teams the change did not touch are marked."""
    if base.spec == head.spec:
        return []  # the same environment: every workload schedules as before
    touched = touched_teams(base, head)
    changes: list[WorkloadChange] = []
    for cand in [*_generated(base), *_examples(examples, base)]:
        before, after = _verdict(base, cand), _verdict(head, cand)
        if before is None or after is None or not before.schedules:
            continue  # only what works today can break
        was = _where(base, before.pools)
        untouched = bool(cand.team) and cand.team not in touched
        if not after.schedules:
            changes.append(WorkloadChange(cand.team, cand.label, was, "does not schedule", _reason(after), untouched))
            continue
        now = _where(head, after.pools)
        if now != was:
            kinds = ({_capacity_kind(base, p) for p in before.pools}, {_capacity_kind(head, p) for p in after.pools})
            why = "capacity kind changes" if kinds[0] != kinds[1] else "its pools change"
            changes.append(WorkloadChange(cand.team, cand.label, was, now, why, untouched))
    return changes


def add_workloads(
    review: Any, base_dir: Path, head_dir: Path, names: list[str] | None = None, examples: Path | None = None
) -> None:
    """Fill each compared stack's ``workloads`` and ``touched_teams`` (both configs loaded with the
    code running now: the head's)."""
    base, base_notes = load_plans(base_dir, names)
    head, _ = load_plans(head_dir, names)  # the head's own errors are the review's errors already
    review.notes += base_notes
    for stack in review.stacks:
        if stack.name not in base or stack.name not in head:
            continue
        stack.touched_teams = tuple(sorted(touched_teams(base[stack.name], head[stack.name])))
        try:
            stack.workloads = workload_changes(base[stack.name], head[stack.name], examples)
        except Exception as exc:  # a lint-model gap must not cost the whole review
            review.notes.append(f"workloads of {stack.name} not compared: {type(exc).__name__}: {exc}")
