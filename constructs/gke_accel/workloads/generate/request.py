"""What ``workload new`` is asked for (``WorkloadRequest``) and the one-line flag errors it answers with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gke_accel.workloads.generate._model import ConfigError, ConfigIssue, EnvironmentPlan, TeamSpec
from gke_accel.workloads.lint.team import teams_by_namespace

Kind = Literal["job", "jobset", "deployment"]
KINDS: tuple[Kind, ...] = ("job", "jobset", "deployment")


@dataclass(frozen=True)
class WorkloadRequest:
    name: str
    team: str
    kind: Kind | None  # None: a JobSet for a multi-host TPU slice, else a Job (``default_kind``)
    accelerator: str  # v5e, l4, h100, ...
    image: str
    command: tuple[str, ...] = ()
    chips: int | None = None  # TPU: chips of the slice; GPU: GPUs per pod
    priority: str | None = None  # default: training (job/jobset), inference (deployment)
    replicas: int = 1  # deployment replicas
    completions: int = 1  # job: runs to complete (a sweep: one per experiment, JOB_COMPLETION_INDEX tells which)
    parallelism: int = 1  # job: runs at once
    cpu: str | None = None
    memory: str | None = None
    checkpoints: bool = True
    port: int | None = None  # deployment: the serving port (gets readiness and liveness probes)
    labels: dict[str, str] = field(default_factory=dict)
    slices: int = 1  # jobset on a multi-host TPU slice: slices (child Jobs, one node pool each)
    nodes: int = 1  # jobset on GPUs: nodes (pods, one per node) of one compact-placement pool
    elastic: bool = False  # job: resizable while it runs (Kueue workload slices, generate/elastic.py)
    weights: str | None = None  # deployment: gs://BUCKET/PATH/ of the model weights (generate/weights.py)
    weights_gib: int | None = None  # Hyperdisk ML: the volume's size
    flex_start: bool = False  # deployment: may run on flex-start / queued-provisioning capacity (at most 7 days)


def fail(flag: str, message: str, valid: Any = "") -> ConfigError:
    text = valid if isinstance(valid, str) else ", ".join(str(v) for v in valid)
    return ConfigError([ConfigIssue(flag, message, text)])


def team_of(plan: EnvironmentPlan, name: str) -> tuple[str, TeamSpec]:
    for ns, team in teams_by_namespace(plan).items():
        if team.name == name:
            return ns, team
    raise fail("--team", f"{name!r} is not a team of {plan.name}", [t.name for t in plan.spec.teams] or "none")
