"""A fleet manager's workers (``fleet:``, model/fleet): loaded from the manager's own config folder,
checked with it (every mistake at once, each naming the manager file's field) and planned into the
manager's queues (the MultiKueue admission check on every ClusterQueue, quotas from the workers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gke_accel.catalog import Catalog
from gke_accel.model.core.errors import ConfigError, IssueCollector
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.fleet.plan import ManagerView, WorkerView, manager_queues, plan_fleet
from gke_accel.model.fleet.rules import check_fleet, check_workers_named
from gke_accel.model.queues.shares import team_shares
from gke_accel.model.teams.accelerators import accelerator_key
from gke_accel.model.teams.plan import with_queues

Loader = Callable[[Path], EnvironmentPlan]  # loads one environment file without resolving its own fleet


def _classes(plan: EnvironmentPlan) -> dict[str, int]:
    c = plan.spec.platform.priority_classes
    return {pc.name: pc.value for pc in (c.inference, c.training, c.batch)}


def worker_view(plan: EnvironmentPlan) -> WorkerView:
    spec = plan.spec
    return WorkerView(
        name=spec.environment,
        project_id=spec.project_id,
        region=spec.region,
        cluster=spec.cluster.name,
        location=spec.cluster.location,
        queues=plan.queues,
        team_namespaces={t.name: t.namespace or t.name for t in spec.teams},
        priority_classes=_classes(plan),
        workers=spec.fleet.workers if spec.fleet is not None else (),
    )


def manager_view(plan: EnvironmentPlan, catalog: Catalog) -> ManagerView:
    spec = plan.spec
    assert spec.fleet is not None
    asked = {}
    for t in spec.teams:
        keys = {}
        for name, chips in t.accelerators.items():
            key = accelerator_key(name, catalog)
            if key is not None:
                keys[key] = (name, chips)
        asked[t.name] = keys
    pools = [f"tpu_pools[{i}]" for i in range(len(spec.tpu_pools))]
    pools += [f"gpu_pools[{i}]" for i in range(len(spec.gpu_pools))]
    return ManagerView(
        name=spec.environment,
        fleet=spec.fleet,
        teams={t.name: t.namespace or t.name for t in spec.teams},
        team_accelerators=asked,
        priority_classes=_classes(plan),
        accelerator_pools=tuple(pools),
        queues=plan.queues is not None,
        cohort=plan.queues.cohort if plan.queues is not None else spec.environment,
    )


def with_fleet(plan: EnvironmentPlan, config_dir: Path, load: Loader, catalog: Catalog) -> EnvironmentPlan:
    """``plan`` with its fleet planned and its queues the manager's; unchanged without ``fleet:``."""
    fleet = plan.spec.fleet
    if fleet is None:
        return plan
    issues = IssueCollector()
    files = {p.stem: p for p in sorted(config_dir.glob("*.yaml"))}
    check_workers_named(plan.name, fleet, list(files), str(config_dir), issues)
    workers: list[WorkerView] = []
    for i, name in enumerate(fleet.workers):
        if name == plan.name or name not in files or fleet.workers.index(name) != i:
            continue
        try:
            workers.append(worker_view(load(files[name])))
        except ConfigError as err:
            issues.bad(f"fleet.workers[{i}]", name,
                       f"does not validate ({len(err.issues)} error(s) in {files[name]})",
                       f"a valid environment (gke-accel validate --env {name})")  # fmt: skip
    manager = manager_view(plan, catalog)
    check_fleet(manager, workers, issues, complete=len(workers) == len(fleet.workers))
    issues.raise_if_any(plan.source)
    planned = plan_fleet(manager, workers)
    timeout = plan.queues.pods_ready_timeout_seconds if plan.queues is not None else 1800
    queues = manager_queues(manager, planned, timeout)
    teams = with_queues(plan.teams, team_shares(queues), catalog)
    return replace(plan, fleet=planned, queues=queues, teams=teams, warnings=(*plan.warnings, *issues.warnings))
