"""Teams: the in-cluster platform for the teams of a cluster composed in your own stack.

Takes the ``GkeCluster`` and its ``TpuSlicePool``/``GpuNodePool`` constructs (every pool composed on the
cluster before it, unless ``pools`` names them), and the teams as ``TeamSpec``s (or mappings, as in
YAML). It collects their specs into one ``EnvironmentSpec`` and plans it with
``model.environment.load.plan_environment``: the same parse, rules and messages as ``gke-accel
validate`` (a quota for an accelerator no pool offers, over-commit with ``strict_capacity``, unknown
priority classes, queue limits), raised as one ``ConfigError`` listing every mistake. Then it declares
what the environment stack declares for teams: priority classes, namespaces with ResourceQuota,
LimitRange, RBAC, NetworkPolicy, Workload Identity and checkpoint prefixes (``InClusterPlatform``),
Kueue and JobSet with one ClusterQueue per team (``QueueControllers``) and the priority fence.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gke_accel.cdk._framework import Construct
from gke_accel.cdk.accelerator_pools import GpuNodePool, TpuSlicePool
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.fences import PriorityFence
from gke_accel.cdk.platform import InClusterPlatform
from gke_accel.cdk.pool_registry import mark_planned, pools_of
from gke_accel.cdk.queues import QueueControllers
from gke_accel.model.cluster.controllers import controller_placement
from gke_accel.model.core.errors import ConfigError, ConfigIssue, bad_value
from gke_accel.model.core.parse import parse_dataclass
from gke_accel.model.core.props import as_data
from gke_accel.model.environment.load import plan_environment
from gke_accel.model.environment.objects import cluster_objects
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.platform.spec import PlatformSpec, TeamSpec
from gke_accel.model.queues.install import jobset_reasons
from gke_accel.model.queues.spec import QueuesSpec

Pool = TpuSlicePool | GpuNodePool


class Teams(Construct):
    """Props: ``cluster`` (a GkeCluster), ``teams`` (TeamSpecs or mappings), ``pools`` (default: every
    pool composed on ``cluster`` so far), ``environment`` (names the team service accounts, the
    checkpoint bucket and the Kueue cohort; default: the cluster's name), ``queues`` (a QueuesSpec, or
    True: share the accelerators through Kueue), ``platform`` (priority classes, checkpoints),
    ``strict_capacity`` (quotas above pool capacity: an error, not a warning).

    Raises ConfigError at construction listing every mistake. ``plan`` is the validated
    EnvironmentPlan (what ``gke-accel validate`` derives); ``warnings`` are printed to stderr.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: GkeCluster,
        teams: Sequence[TeamSpec | Mapping[str, Any]],
        pools: Sequence[Pool] | None = None,
        environment: str | None = None,
        queues: QueuesSpec | Mapping[str, Any] | bool | None = None,
        platform: PlatformSpec | Mapping[str, Any] | None = None,
        strict_capacity: bool = False,
    ) -> None:
        super().__init__(scope, id)
        source = self.node.path
        if not isinstance(cluster, GkeCluster):
            raise ConfigError([bad_value("cluster", type(cluster).__name__, "should be a GkeCluster")], source)
        composed = pools_of(cluster) if pools is None else list(pools)
        self.plan: EnvironmentPlan = _plan(
            cluster, composed, teams, environment, queues, platform, strict_capacity, source=source
        )
        self.warnings: tuple[str, ...] = self.plan.warnings
        for warning in self.warnings:
            print(f"{source}: warning: {warning}", file=sys.stderr)
        mark_planned(cluster, source)
        plan = self.plan
        self.platform = InClusterPlatform(self, "platform", plan=plan, cluster=cluster)
        jobset = bool(jobset_reasons(plan.pools, plan.queues))  # multi-host slices, multi-node GPU pools, Kueue
        self.queues = (
            QueueControllers(
                self,
                "queues",
                plan=plan.queues,
                jobset=jobset,
                classes=plan.spec.platform.priority_classes,
                cluster=cluster,
                placement=controller_placement(plan.cluster),
                after=self.platform.namespaces(),
            )
            if plan.queues is not None or jobset
            else None
        )
        kueue = self.queues is not None and self.queues.kueue is not None
        fence = cluster_objects(plan).fence
        self.fences = (
            PriorityFence(self, "fences", manifests=fence, queues=self.queues) if kueue and self.queues else None
        )


_TEAM_PATH = re.compile(r"^teams\[(\d+)\]")


def _team_data(teams: Any, issues: list[ConfigIssue]) -> tuple[list[Any], list[int]]:
    """Each team as YAML data; a field that does not parse is reported and left at its default, so the
    rest of the team (and every other team) is still checked: all mistakes at once. A team missing a
    required field is left out. Returns the data and each entry's index in ``teams``."""
    if isinstance(teams, str | bytes | Mapping) or not isinstance(teams, Sequence):
        issues.append(bad_value("teams", type(teams).__name__, "should be a list of TeamSpec"))
        return [], []
    kept: list[Any] = []
    index: list[int] = []
    for i, team in enumerate(teams):
        data = as_data(team)
        path = f"teams[{i}]"
        spec, found = parse_dataclass(TeamSpec, data, path)
        issues += found
        if found and isinstance(data, dict):
            bad = {issue.path[len(path) + 1 :].split(".")[0].split("[")[0] for issue in found}
            data = {k: v for k, v in data.items() if k not in bad}
            spec, _ = parse_dataclass(TeamSpec, data, path)
        if spec is not None:
            kept.append(data)
            index.append(i)
    return kept, index


def _renumber(issue: ConfigIssue, index: list[int]) -> ConfigIssue:
    match = _TEAM_PATH.match(issue.path)
    if match is None or int(match.group(1)) >= len(index):
        return issue
    return replace(issue, path=f"teams[{index[int(match.group(1))]}]{issue.path[match.end() :]}")


def _plan(
    cluster: GkeCluster,
    pools: Sequence[Any],
    teams: Any,
    environment: str | None,
    queues: Any,
    platform: Any,
    strict_capacity: bool,
    *,
    source: str,
) -> EnvironmentPlan:
    """The specs of the composed constructs as one environment, parsed as YAML would be, and planned
    by ``plan_environment``; one ConfigError with every mistake (parse and rules alike)."""
    issues: list[ConfigIssue] = []
    team_data, index = _team_data(teams, issues)

    def renumbered(found: Sequence[ConfigIssue]) -> list[ConfigIssue]:  # teams[j] of the kept -> as given
        return [_renumber(i, index) for i in found]

    tpu: list[Any] = []
    gpu: list[Any] = []
    for i, pool in enumerate(pools):
        if not isinstance(pool, TpuSlicePool | GpuNodePool):
            issues.append(bad_value(f"pools[{i}]", type(pool).__name__, "should be a TpuSlicePool or GpuNodePool"))
        elif pool.cluster is not cluster:
            issues.append(
                bad_value(f"pools[{i}]", pool.spec.name, "is a pool of another cluster", "the pools of `cluster`")
            )
        else:
            (tpu if isinstance(pool, TpuSlicePool) else gpu).append(as_data(pool.spec))

    data: dict[str, Any] = {
        "environment": environment if environment is not None else cluster.plan.spec.name,
        "project_id": cluster.project,
        "region": cluster.region,
        "cluster": as_data(cluster.plan.spec),
        "tpu_pools": tpu,
        "gpu_pools": gpu,
        "teams": team_data,
        "strict_capacity": strict_capacity,
    }
    if queues is True:
        data["queues"] = {}
    elif queues is not None and queues is not False:
        data["queues"] = as_data(queues)
    if platform is not None:
        data["platform"] = as_data(platform)
    spec, found = parse_dataclass(EnvironmentSpec, data)
    issues += renumbered(found)
    if spec is None:
        raise ConfigError(issues, source)
    try:
        plan = plan_environment(spec, source=source)
    except ConfigError as err:
        raise ConfigError([*issues, *renumbered(err.issues)], source) from None
    if issues:
        raise ConfigError(issues, source)
    return plan
