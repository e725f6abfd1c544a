"""Runs every lint rule over the workloads read from YAML, per environment, and renders the verdict:
whether and where each workload schedules, and the errors and warnings that say why not."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gke_accel.workloads.lint import admission, jobs, slices, storage, team
from gke_accel.workloads.lint._model import GPU_RESOURCE, TPU_RESOURCE, EnvironmentPlan, platform_manifests
from gke_accel.workloads.lint.dws import dws_findings
from gke_accel.workloads.lint.elastic import elastic_findings
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.fit import fit_findings
from gke_accel.workloads.lint.ladder import ladder_findings
from gke_accel.workloads.lint.limits import default_limits, limit_range_findings
from gke_accel.workloads.lint.placement import accelerator_of, place
from gke_accel.workloads.lint.podsecurity import enforced_levels, violations
from gke_accel.workloads.lint.priority_label import priority_label_findings
from gke_accel.workloads.lint.queues import kueue_priority_findings, queue_findings, team_queue
from gke_accel.workloads.lint.resources import resource_findings
from gke_accel.workloads.lint.scheduling import pod_requests
from gke_accel.workloads.lint.slice_topology import slice_topology_findings
from gke_accel.workloads.lint.tpu import tpu_findings
from gke_accel.workloads.manifests import Documents, PodGroup, Workload, read_documents
from gke_accel.workloads.nodes import PoolNodes, pool_nodes


@dataclass(frozen=True)
class WorkloadVerdict:
    workload: Workload
    findings: tuple[Finding, ...]
    pools: tuple[str, ...]  # pools its pods fit on

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def schedules(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        wl = self.workload
        where = f"{wl.ref} ({wl.namespace or 'no namespace'}, {wl.source})"
        if self.schedules:
            return f"ok    {where}: schedules on {', '.join(self.pools) or '(no pool)'}"
        return f"FAIL  {where}: will not run as written ({len(self.errors)} error(s))"


@dataclass(frozen=True)
class LintReport:
    environment: str
    verdicts: tuple[WorkloadVerdict, ...]
    notes: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.unreadable and all(v.schedules for v in self.verdicts)

    def render(self) -> str:
        lines = [f"environment {self.environment}:"]
        for v in self.verdicts:
            lines.append(v.summary())
            lines += [f.render() for f in sorted(v.findings, key=lambda f: f.severity)]
        lines += [f"error {u}" for u in self.unreadable]
        lines += [f"note  {n}" for n in self.notes]
        errors = sum(len(v.errors) for v in self.verdicts) + len(self.unreadable)
        warnings = sum(len(v.findings) - len(v.errors) for v in self.verdicts)
        lines.append(f"{len(self.verdicts)} workload(s): {errors} error(s), {warnings} warning(s)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "environment": self.environment,
            "ok": self.ok,
            "workloads": [
                {
                    "kind": v.workload.kind,
                    "name": v.workload.name,
                    "namespace": v.workload.namespace,
                    "source": v.workload.source,
                    "schedules": v.schedules,
                    "pools": list(v.pools),
                    "findings": [f.to_dict() for f in v.findings],
                }
                for v in self.verdicts
            ],
            "notes": list(self.notes),
            "unreadable": list(self.unreadable),
        }


def _capacity(g: PodGroup, requests: dict[str, Decimal], pools: list[PoolNodes]) -> list[Finding]:
    """Pods at once against what the fitting pools hold at their maximum size (accelerator pods)."""
    accel = next((r for r in (TPU_RESOURCE, GPU_RESOURCE) if requests.get(r)), None)
    if accel is None or not pools:
        return []
    per_pod = requests[accel]
    room = sum(int(p.allocatable.get(accel, Decimal(0)) // per_pod) * p.max_nodes for p in pools)
    if g.pods <= room:
        return []
    return [
        Finding(
            "capacity",
            "warning",
            g.job_path or g.path,
            f"runs {g.pods} pods at once, but at their maximum size the pools it fits "
            f"({', '.join(p.name for p in pools)}) hold {room}: the rest wait for a free node",
        )
    ]


@dataclass
class _Context:
    plan: EnvironmentPlan
    pools: list[PoolNodes]
    teams: dict[str, Any]
    services: list[dict[str, Any]] = field(default_factory=list)
    pod_security: dict[str, str] = field(default_factory=dict)  # namespace -> enforced level
    enforced: dict[str, team.Enforced] = field(default_factory=dict)  # namespace -> quota and queue
    limit_defaults: dict[str, dict[str, Decimal]] = field(default_factory=dict)  # namespace -> LimitRange defaults
    kueue: bool = True  # model Kueue's admission where the environment uses it (False: pods that bypass it)


def _same_kind(requests: dict[str, Decimal], pools: list[PoolNodes]) -> list[PoolNodes]:
    """The pools of the pod's accelerator kind (all pools for a CPU-only pod)."""
    kind = {TPU_RESOURCE: "tpu", GPU_RESOURCE: "gpu"}.get(accelerator_of(requests) or "")
    return [p for p in pools if kind is None or p.plan.kind == kind]


def _lint_workload(ctx: _Context, wl: Workload) -> WorkloadVerdict:
    findings: list[Finding] = []
    placed: list[team.Placed] = []
    fitting: list[str] = []
    owner = ctx.teams.get(wl.namespace or "")
    findings += team.namespace_findings(wl, ctx.teams)
    if not wl.groups:
        findings.append(Finding("no-pool", "error", "spec", "has no pod template"))
    for g in wl.groups:
        requests = storage.with_sidecar(g, pod_requests(g.spec))  # + the GCS FUSE sidecar and its cache
        named = resource_findings(g.spec, g.path)
        findings += named
        findings += limit_range_findings(g.spec, g.path, ctx.limit_defaults.get(wl.namespace or "", {}))
        findings += storage.cache_findings(g, _same_kind(requests, ctx.pools))
        if any(f.rule == "resource-name" and f.severity == "error" for f in named):
            pools: list[PoolNodes] = []  # an unknown resource: where it would go is unknown too (newcomer N9)
        else:
            kueue = admission.flavors_for(ctx.plan, owner, g.spec, requests) if ctx.kueue else None
            if kueue is None or owner is None:
                pools, why = place(g.spec, g.path, requests, ctx.pools)
            else:  # the pod as Kueue admits it: a flavor's node labels and tolerations added
                pools, why = admission.place_admitted(*kueue, owner, g.path, requests, ctx.pools)
            findings += why + fit_findings(g.path, requests, pools)
        findings += storage.image_findings(ctx.plan, g, pools)
        fitting += [p.name for p in pools if p.name not in fitting]
        placed.append(team.Placed(g, requests, pools))
        findings += tpu_findings(g, requests, pools)
        findings += ladder_findings(ctx.plan, g, pools)
        findings += jobs.multi_host_findings(wl, g, pools, ctx.services)
        findings += slices.slice_findings(wl, g, pools)
        findings += slice_topology_findings(ctx.plan, wl, g, pools)
        findings += slices.multi_node_findings(wl, g, requests, pools)
        findings += _capacity(g, requests, pools)
        findings += jobs.retry_findings(wl, g, any(p.plan.spot for p in pools))
        findings += team.priority_findings(ctx.plan, wl, g, owner)
        level = ctx.pod_security.get(wl.namespace or "")
        if level:
            findings += [
                Finding("pod-security", "error", g.path, f"namespace {wl.namespace} enforces {level!r}: {problem}")
                for problem in violations(g.spec, level)
            ]
    if owner is not None:
        findings += team.quota_findings(wl, owner, placed, ctx.enforced.get(wl.namespace or "", team.Enforced({})))
    findings += queue_findings(ctx.plan, wl, owner)
    defaulted = owner is not None and team_queue(ctx.plan, owner) is not None  # Kueue's `default` LocalQueue
    findings += dws_findings(ctx.plan, wl, [p for p in ctx.pools if p.name in fitting], defaulted)
    findings += elastic_findings(ctx.plan, wl, [p for p in ctx.pools if p.name in fitting])
    findings += kueue_priority_findings(ctx.plan, wl, owner)
    findings += priority_label_findings(ctx.plan, wl)
    unique = tuple(dict.fromkeys(findings))
    return WorkloadVerdict(wl, unique, tuple(fitting))


def lint_documents(plan: EnvironmentPlan, docs: Documents, kueue: bool = True) -> LintReport:
    """``kueue``: place team pods as Kueue admits them where the environment uses it; False for an
    engine without Kueue (tests/e2e/test_fixture_nodes.py: kube-scheduler alone)."""
    manifests = platform_manifests(plan)
    ctx = _Context(
        plan, pool_nodes(plan), team.teams_by_namespace(plan), list(docs.services), enforced_levels(manifests)
    )
    ctx.limit_defaults = default_limits(manifests)
    ctx.kueue = kueue
    ctx.enforced = team.enforced_by_namespace(plan)
    verdicts = tuple(_lint_workload(ctx, wl) for wl in docs.workloads)
    notes = tuple(docs.skipped)
    if not docs.workloads and not docs.errors:
        notes += ("no workloads found (Pod, Job, JobSet, Deployment, StatefulSet)",)
    return LintReport(plan.name, verdicts, notes, tuple(docs.errors))


def lint_texts(plan: EnvironmentPlan, texts: list[tuple[str, str]], kueue: bool = True) -> LintReport:
    """Lint (file name, YAML text) pairs against one environment."""
    return lint_documents(plan, read_documents(texts), kueue)
