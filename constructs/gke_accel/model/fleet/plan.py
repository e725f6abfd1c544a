"""The plan of a fleet: what each worker offers each team, and the manager's queues derived from it.

The manager runs no job itself: its ClusterQueues (one per team, as on every environment) carry the
MultiKueue admission check, so every admitted workload is copied to a worker. Its quota per team and
accelerator is what the workers can give that team together (each worker's ceiling: nominal plus the
most it may borrow there), or the manager team's own ``accelerators`` where that is smaller: Kueue
then never dispatches more than the fleet can run, and the rest waits in the manager's queue.

Inputs are small views (``WorkerView``, ``ManagerView``) the environment loader builds from validated
environments (``model/environment/fleet_members.py``), so this package never imports that one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gke_accel.model.fleet.spec import FleetSpec
from gke_accel.model.queues.flavors import Flavor
from gke_accel.model.queues.plan import FlavorQuota, QueuePlan, TeamQueue
from gke_accel.model.teams.compute import TeamCompute

ADMISSION_CHECK = "fleet"  # the AdmissionCheck and MultiKueueConfig on the manager
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"  # Kueue v1beta2 MultiKueueControllerName
FLAVOR_PREFIX = "fleet-"
AcceleratorKey = tuple[str, str]  # (resource, accelerator label)


@dataclass(frozen=True)
class WorkerView:
    """What the fleet needs of one validated worker environment."""

    name: str
    project_id: str
    region: str
    cluster: str
    location: str
    queues: QueuePlan | None
    team_namespaces: Mapping[str, str]  # team -> namespace
    priority_classes: Mapping[str, int]  # WorkloadPriorityClass name -> value
    workers: tuple[str, ...] = ()  # its own fleet.workers: a worker must not be a manager


@dataclass(frozen=True)
class ManagerView:
    name: str
    fleet: FleetSpec
    teams: Mapping[str, str]  # team -> namespace
    team_accelerators: Mapping[str, Mapping[AcceleratorKey, tuple[str, int]]]  # team -> key -> (config name, chips)
    priority_classes: Mapping[str, int]
    accelerator_pools: tuple[str, ...]  # "tpu_pools[0]" ... (a manager has none unless fleet.manager_pools)
    queues: bool  # the manager has ``queues:``
    cohort: str


@dataclass(frozen=True)
class WorkerOffer:
    """Chips (or GPUs) of one accelerator that one worker can give one team at once, borrowing included."""

    worker: str
    team: str
    resource: str
    accelerator: str
    chips: int
    cpu: int
    memory_gib: int


@dataclass(frozen=True)
class FleetPlan:
    manager: str
    spec: FleetSpec
    workers: tuple[WorkerView, ...]  # in dispatch order
    offers: tuple[WorkerOffer, ...]
    check: str = ADMISSION_CHECK
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(w.name for w in self.workers)

    def offered(self, team: str) -> dict[AcceleratorKey, int]:
        out: dict[AcceleratorKey, int] = {}
        for o in self.offers:
            if o.team == team:
                out[(o.resource, o.accelerator)] = out.get((o.resource, o.accelerator), 0) + o.chips
        return out

    def workers_offering(self, team: str, key: AcceleratorKey) -> tuple[str, ...]:
        return tuple(o.worker for o in self.offers if o.team == team and (o.resource, o.accelerator) == key)


def worker_offers(worker: WorkerView) -> list[WorkerOffer]:
    """Per team and accelerator: the team's ceiling on this worker (nominal + the most it may borrow)."""
    plan = worker.queues
    if plan is None:
        return []
    by_flavor = {f.name: f for f in plan.flavors}
    out: list[WorkerOffer] = []
    for team in plan.teams:
        per_key: dict[AcceleratorKey, int] = {}
        for flavor, chips in team.flavor_ceilings.items():
            f = by_flavor[flavor]
            per_key[(f.resource, f.accelerator)] = per_key.get((f.resource, f.accelerator), 0) + chips
        out += [
            WorkerOffer(worker.name, team.team, r, a, chips, team.cpu, team.memory_gib)
            for (r, a), chips in sorted(per_key.items())
            if chips > 0
        ]
    return out


def _manager_flavors(workers: Sequence[WorkerView]) -> tuple[Flavor, ...]:
    """One flavor per accelerator the workers have: the node labels all its worker flavors share (the
    accelerator's own label, at least), no taints (pods never run on the manager), capacity the sum."""
    groups: dict[AcceleratorKey, list[Flavor]] = {}
    for w in workers:
        for f in w.queues.flavors if w.queues is not None else ():
            groups.setdefault((f.resource, f.accelerator), []).append(f)
    out = []
    for (resource, accelerator), flavors in sorted(groups.items(), key=lambda kv: kv[0][1]):
        common = set(flavors[0].node_labels)
        for f in flavors[1:]:
            common &= set(f.node_labels)
        out.append(
            Flavor(
                name=f"{FLAVOR_PREFIX}{accelerator}",
                resource=resource,
                accelerator=accelerator,
                node_labels=tuple(sorted(common)),
                tolerations=(),
                pools=(),
                chips_max=sum(f.chips_max for f in flavors),
                provisioning="fleet",
            )
        )
    return tuple(out)


def manager_queues(manager: ManagerView, plan: FleetPlan, pods_ready_timeout_seconds: int) -> QueuePlan:
    """The manager's queue plan: a ClusterQueue per team over the fleet's flavors, each behind the check."""
    flavors = _manager_flavors(plan.workers)
    teams = []
    for team, namespace in manager.teams.items():
        offered = plan.offered(team)
        asked = manager.team_accelerators.get(team, {})
        quotas = []
        for f in flavors:
            key = (f.resource, f.accelerator)
            chips = offered.get(key, 0)
            if asked:  # the team's own cap where it names accelerators; none of the others
                chips = min(chips, asked[key][1]) if key in asked else 0
            quotas.append(FlavorQuota(f.name, f.resource, chips, 0, None))
        mine = [o for o in plan.offers if o.team == team]
        per_worker = {o.worker: (o.cpu, o.memory_gib) for o in mine}
        compute = TeamCompute(
            cpu=sum(c for c, _ in per_worker.values()),
            memory_gib=sum(m for _, m in per_worker.values()),
            derived=True,
        )
        ceilings: dict[str, int] = {}
        for q in quotas:
            ceilings[q.resource] = ceilings.get(q.resource, 0) + q.nominal
        teams.append(
            TeamQueue(
                team=team,
                namespace=namespace,
                cluster_queue=team,
                local_queue="team",
                quotas=tuple(quotas),
                compute=compute,
                preempt_when_borrowing=False,
                ceilings=ceilings,
                flavor_ceilings={q.flavor: q.nominal for q in quotas},
            )
        )
    return QueuePlan(
        cohort=manager.cohort,
        flavors=flavors,
        teams=tuple(teams),
        pods_ready_timeout_seconds=pods_ready_timeout_seconds,
        admission_checks=(plan.check,),
        multikueue=multikueue_configuration(plan),
        feature_gates=feature_gates(plan.spec),
    )


def _seconds(value: int) -> str:
    return f"{value}s"


def multikueue_configuration(plan: FleetPlan) -> dict[str, Any]:
    """The ``multiKueue`` block of the manager's Kueue Configuration (Kueue v0.19.2 apis/config/v1beta2
    MultiKueue: gcInterval, origin, workerLostTimeout, dispatcherName, incrementalDispatcherConfig,
    clusterProfile.accessProviders)."""
    spec = plan.spec
    block: dict[str, Any] = {
        "gcInterval": _seconds(spec.gc_interval_seconds),
        "origin": plan.manager,
        "workerLostTimeout": _seconds(spec.worker_lost_timeout_seconds),
    }
    if spec.dispatch == "ordered":
        # the Incremental dispatcher nominates workers in MultiKueueConfig.spec.clusters order (feature
        # MultiKueueIncrementalDispatcherRespectConfigOrder, beta and on in 0.19), stepSize at a time
        # (MultiKueueIncrementalDispatcherConfig, beta and on in 0.19): one, so the order is a preference
        block["dispatcherName"] = "kueue.x-k8s.io/multikueue-dispatcher-incremental"
        block["incrementalDispatcherConfig"] = {"stepSize": 1}
    else:
        block["dispatcherName"] = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"
    if spec.access == "cluster-profile" and spec.access_plugin is not None:
        exec_config: dict[str, Any] = {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": spec.access_plugin.command,
            "provideClusterInfo": True,
        }
        if spec.access_plugin.args:
            exec_config["args"] = list(spec.access_plugin.args)
        block["clusterProfile"] = {"accessProviders": [{"name": spec.access_plugin.name, "execConfig": exec_config}]}
    return block


def feature_gates(spec: FleetSpec) -> tuple[str, ...]:
    """Kueue feature gates the manager needs beyond 0.19.2's defaults (MultiKueue itself is beta and on
    since 0.9; ClusterProfile access is alpha and off: pkg/features/kube_features.go)."""
    return ("MultiKueueClusterProfile",) if spec.access == "cluster-profile" else ()


def plan_fleet(manager: ManagerView, workers: Sequence[WorkerView]) -> FleetPlan:
    """The fleet of a manager whose workers are valid environments (``rules.check_fleet`` first)."""
    offers = tuple(o for w in workers for o in worker_offers(w))
    return FleetPlan(manager=manager.name, spec=manager.fleet, workers=tuple(workers), offers=offers)
