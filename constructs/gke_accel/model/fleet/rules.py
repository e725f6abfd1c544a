"""The rules of a fleet, all checked at once: every mistake names the manager file's field, the bad value
and what would be valid (docs/fleet.md "Validation").

- each worker is an environment of the same config folder, named once, not the manager itself, and not
  a manager of its own (MultiKueue has one level; a worker naming the manager back is a cycle);
- the manager uses Kueue (``queues:``) and so does every worker;
- the manager has no accelerator pools unless ``fleet.manager_pools`` says it may (no fleet job runs there);
- every manager team exists on some worker, in the same namespace, and can run each accelerator it
  names somewhere (a team that can run a job class nowhere is an error); every priority class of the
  manager exists with the same value on every worker (a dispatched workload keeps its class);
- ``cluster-profile`` access names the plugin Kueue runs; timeouts are positive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.fleet.plan import ManagerView, WorkerView, worker_offers
from gke_accel.model.fleet.spec import FleetSpec

MAX_WORKERS = 20  # MultiKueueConfig.spec.clusters: MaxItems=20 (Kueue v0.19.2 multikueue_types.go)


def check_workers_named(
    manager: str, spec: FleetSpec, available: Sequence[str], config_dir: str, issues: IssueCollector
) -> None:
    """Names only: each worker an environment file of the folder, once, not the manager."""
    if not spec.workers:
        issues.bad("fleet.workers", [], "names no worker", "one or more environments of this folder, in dispatch order")
    if len(spec.workers) > MAX_WORKERS:
        issues.bad(
            "fleet.workers", len(spec.workers), "workers is more than MultiKueue takes", f"at most {MAX_WORKERS}"
        )
    others = sorted(n for n in available if n != manager)
    for i, name in enumerate(spec.workers):
        path = f"fleet.workers[{i}]"
        if name == manager:
            issues.bad(path, name, "is the manager itself (a cycle: a manager cannot dispatch to itself)",
                       ", ".join(others) or "another environment")  # fmt: skip
        elif name not in available:
            issues.bad(path, name, f"is not an environment in {config_dir}", ", ".join(others) or "(none there)")
        elif spec.workers.index(name) != i:
            issues.bad(path, name, "is named twice (MultiKueueConfig clusters must be unique)", "each worker once")


def check_fleet(
    manager: ManagerView, workers: Sequence[WorkerView], issues: IssueCollector, *, complete: bool = True
) -> None:
    """Everything about valid, loaded workers and the manager (the names were checked first).
    ``complete``: every named worker loaded; otherwise what the teams can run is not judged (no
    follow-on errors of a missing worker)."""
    spec = manager.fleet
    _check_settings(spec, issues)
    if not manager.queues:
        issues.bad("queues", None, "is missing: a fleet manager queues every job in Kueue", "queues: {}")
    if manager.accelerator_pools and not spec.manager_pools:
        issues.bad(
            manager.accelerator_pools[0].split("[")[0],
            ", ".join(manager.accelerator_pools),
            "are accelerator pools on a fleet manager, where no fleet job runs",
            "none (the workers run the jobs), or fleet.manager_pools: true to keep them for work outside the fleet",
        )
    index = {name: i for i, name in enumerate(spec.workers)}
    for w in workers:
        path = f"fleet.workers[{index.get(w.name, 0)}]"
        if w.workers:
            back = manager.name in w.workers
            own = ", ".join(w.workers)
            what = (f"names {manager.name} as its own worker: a cycle" if back
                    else f"is itself a fleet manager (of {own}): MultiKueue has one manager level")  # fmt: skip
            issues.bad(path, w.name, what, "a worker environment without a fleet: block")
        if w.queues is None:
            issues.bad(path, w.name, "runs no Kueue (its file has no queues:)", f"queues: {{}} in {w.name}'s file")
    _check_teams(manager, workers, issues, complete)
    _check_priorities(manager.priority_classes, workers, issues)


def _check_settings(spec: FleetSpec, issues: IssueCollector) -> None:
    for field in ("worker_lost_timeout_seconds", "gc_interval_seconds"):
        value = getattr(spec, field)
        if value < 1:
            issues.bad(f"fleet.{field}", value, "is not a positive number of seconds", "1 or more")
    if spec.access == "cluster-profile" and spec.access_plugin is None:
        issues.bad(
            "fleet.access_plugin",
            None,
            "is required with access: cluster-profile (Kueue runs this plugin for each worker's token)",
            "{name: <the provider name your ClusterProfiles list>, command: <the plugin's path in the Kueue pod>}"
            ", or access: kubeconfig-secret",
        )
    if spec.access == "kubeconfig-secret" and spec.access_plugin is not None:
        issues.bad("fleet.access_plugin", spec.access_plugin.name, "is only used with access: cluster-profile",
                   "leave it out, or access: cluster-profile")  # fmt: skip


def _check_teams(manager: ManagerView, workers: Sequence[WorkerView], issues: IssueCollector, complete: bool) -> None:
    offers = [o for w in workers for o in worker_offers(w)]
    for i, (team, namespace) in enumerate(manager.teams.items()):
        path = f"teams[{i}]"
        hosts = [w for w in workers if team in w.team_namespaces]
        if not hosts and complete:
            issues.bad(f"{path}.name", team, "is a team no worker has: its jobs could run nowhere",
                       f"a team of a worker ({_teams_of(workers)}), or add it to a worker")  # fmt: skip
            continue
        for w in hosts:
            if w.team_namespaces[team] != namespace:
                theirs = w.team_namespaces[team]
                issues.bad(
                    f"{path}.namespace",
                    namespace,
                    f"differs from the team's namespace on worker {w.name} ({theirs})",
                    "the same namespace on the manager and every worker (MultiKueue copies jobs there)",
                )
        if not complete:  # a worker is missing: what the team can run is not judged (no follow-on errors)
            continue
        mine = [o for o in offers if o.team == team]
        if not mine:
            issues.bad(f"{path}.name", team, "gets no accelerator on any worker: its jobs could run nowhere",
                       "give the team accelerators on at least one worker")  # fmt: skip
        offered = {(o.resource, o.accelerator) for o in mine}
        for key, (name, _) in manager.team_accelerators.get(team, {}).items():
            if key not in offered:
                where = ", ".join(sorted({o.accelerator for o in mine})) or "nothing"
                issues.bad(f"{path}.accelerators.{name}", name,
                           "is offered to this team by no worker: such jobs could run nowhere",
                           f"what the workers give {team}: {where}")  # fmt: skip
    for w in workers:
        for team in w.team_namespaces:
            if team not in manager.teams:
                issues.warn(f"fleet.workers ({w.name})", f"team {team} is not on the manager: no fleet job reaches it")


def _teams_of(workers: Sequence[WorkerView]) -> str:
    return ", ".join(sorted({t for w in workers for t in w.team_namespaces})) or "none"


def _check_priorities(classes: Mapping[str, int], workers: Sequence[WorkerView], issues: IssueCollector) -> None:
    for w in workers:
        for name, value in classes.items():
            theirs = w.priority_classes.get(name)
            if theirs != value:
                issues.bad(
                    "platform.priority_classes",
                    f"{name}={value}",
                    f"differs on worker {w.name} ({name}={theirs if theirs is not None else 'missing'})",
                    "the same priority classes and values on the manager and every worker",
                )
