"""One environment: parse ``config/<env>.yaml``, validate everything, derive every node pool."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.capacity.ladder import apply_ladders
from gke_accel.model.cluster.plan import ClusterPlan, plan_cluster
from gke_accel.model.core.errors import ConfigError, ConfigIssue, IssueCollector
from gke_accel.model.core.limits import MAX_NODES_PER_CLUSTER, POOLS_MAX, POOLS_WARN
from gke_accel.model.core.names import DNS_LABEL, check_labels, check_project_id, check_region, claim_pool_name
from gke_accel.model.core.parse import derived_from, parse_dataclass, parse_lenient
from gke_accel.model.core.props import normalized
from gke_accel.model.core.show import show
from gke_accel.model.core.versions import check_min_versions
from gke_accel.model.core.yaml_input import ConfigInputError, load_config_file, parse_config_text
from gke_accel.model.environment.fleet_members import with_fleet
from gke_accel.model.environment.ladders import ladders_of_spec
from gke_accel.model.environment.plan import SYSTEM_POOL_NAME, DeclaredPool, EnvironmentPlan
from gke_accel.model.environment.pools import plan_declared_pool
from gke_accel.model.environment.registry import check_all, plan_all
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.lifecycle_planner.hook import apply_lifecycle
from gke_accel.model.pools.cpu_pool import plan_cpu_pool
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec
from gke_accel.model.queues.shares import team_shares
from gke_accel.model.security.state import prefix_problem
from gke_accel.model.teams.compute import cpu_base
from gke_accel.model.teams.plan import plan_teams, with_queues

BUCKET_NAME = re.compile(r"[a-z0-9][-a-z0-9_.]{1,61}[a-z0-9]")
PROJECT_NUMBER = re.compile(r"[1-9][0-9]{5,18}")


def _check_environment(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    if not DNS_LABEL.fullmatch(spec.environment):
        issues.bad("environment", spec.environment, "is not a valid environment name", "a DNS label such as dev")
    check_project_id(spec.project_id, "project_id", issues)
    if spec.project_number is not None and not PROJECT_NUMBER.fullmatch(spec.project_number):
        issues.bad(
            "project_number",
            spec.project_number,
            "is not a project number",
            "the project's number from `gcloud projects describe`, as digits in quotes, e.g. '123456789012'",
        )
    check_region(spec.region, "region", issues)
    check_labels(spec.labels, "labels", issues)
    b = spec.backend
    if b.bucket is not None and not BUCKET_NAME.fullmatch(b.bucket):
        issues.bad("backend.bucket", b.bucket, "is not a GCS bucket name", "3-63 lowercase letters, digits, -, _, .")
    if b.type == "gcs" and not b.bucket:
        issues.bad("backend.bucket", None, "is required for a gcs backend", "a GCS bucket name for Terraform state")
    if b.type == "local" and b.bucket:
        issues.bad("backend.bucket", b.bucket, "is only used with type 'gcs'", "leave it out, or type: gcs")
    if b.type == "local" and b.prefix is not None:
        issues.bad(
            "backend.prefix",
            b.prefix,
            "is only used with type 'gcs' (a local backend ignores it)",
            "leave it out, or type: gcs",
        )
    elif b.prefix is not None and (problem := prefix_problem(b.prefix)):
        issues.bad("backend.prefix", b.prefix, problem, "folder names joined by '/', such as gke-accel/prod")


def _check_cluster_size(
    cluster: ClusterPlan, pools: list[NodePoolPlan], issues: IssueCollector, cpu_pools: Sequence[NodePoolPlan] = ()
) -> None:
    """GKE's per-cluster limits over every derived pool (one pool per multi-host slice)."""
    pools = [*pools, *cpu_pools]
    count = len(pools) + 1  # and the system pool
    if count > POOLS_MAX:
        issues.bad("tpu_pools", count, "node pools is more than gke-accel supports", f"at most {POOLS_MAX}")
    elif count > POOLS_WARN:
        issues.warn("(cluster)", f"{count} node pools; GKE autoscaling slows down above {POOLS_WARN}")
    nodes = sum(p.node_bounds()[1] for p in [cluster.system_pool, *pools])
    if nodes > MAX_NODES_PER_CLUSTER:
        issues.bad(
            "(cluster)",
            nodes,
            "nodes at the pools' largest sizes is more than a GKE cluster allows",
            f"at most {MAX_NODES_PER_CLUSTER} nodes in all pools together",
        )


def plan_environment(
    spec: EnvironmentSpec,
    *,
    source: str = "",
    catalog: Catalog | None = None,
    prior: Sequence[ConfigIssue] = (),
    replaced: Sequence[str] = (),
) -> EnvironmentPlan:
    """Validate an environment spec; raise ConfigError listing every issue found (``prior``: issues
    found while parsing, such as unknown keys, reported with these; ``replaced``: fields the lenient
    parse left at their default, whose rule findings are follow-ons and left out)."""
    catalog = catalog or load_catalog()
    issues = IssueCollector(list(prior))
    # A spec built in Python gets the same parse as YAML (``consumption="spot"``, a list where a
    # mapping belongs): config errors naming the field, never an AttributeError inside a rule.
    given = normalized(EnvironmentSpec, spec, "", issues)
    if given is None:
        issues.raise_if_any(source)
    assert given is not None
    spec = given
    _check_environment(spec, issues)
    cluster = plan_cluster(spec.cluster, region=spec.region, issues=issues, catalog=catalog)
    pools: list[NodePoolPlan] = []
    sources: list[DeclaredPool] = []  # which declared pool each derived pool comes from
    failed = 0  # pools with a mistake: left out of the cross-checks below, so no follow-on errors
    entries: list[tuple[Literal["tpu", "gpu"], str, TpuPoolSpec | GpuPoolSpec]]
    entries = [("tpu", f"tpu_pools[{i}]", p) for i, p in enumerate(spec.tpu_pools)]
    entries += [("gpu", f"gpu_pools[{i}]", p) for i, p in enumerate(spec.gpu_pools)]
    for kind, path, pool_spec in entries:
        before = len(issues.issues)
        slices = plan_declared_pool(
            pool_spec, region=spec.region, cluster_zones=cluster.node_zones, path=path, issues=issues, catalog=catalog
        )
        pools += slices
        sources.append(DeclaredPool(kind, pool_spec.name, tuple(p.name for p in slices)))
        failed += len(issues.issues) > before
    # a pool with a field that did not parse is incomplete: no capacity cross-checks on its defaults
    failed += sum(1 for r in replaced if r.startswith(("tpu_pools", "gpu_pools")))
    cpu_pools = [
        plan
        for i, cpu in enumerate(spec.cpu_pools)
        if (plan := plan_cpu_pool(cpu, cluster_zones=cluster.node_zones, path=f"cpu_pools[{i}]", issues=issues,
                                  catalog=catalog)) is not None
    ]  # fmt: skip
    _check_cluster_size(cluster, pools, issues, cpu_pools)
    # the capacity ladders, planned once (their mistakes reported here); pools behind a rung get the
    # label and taint of their ladder's ComputeClass
    ladders = ladders_of_spec(spec, pools, issues) if spec.capacity and not failed else ()
    pools = list(apply_ladders(pools, ladders))
    check_min_versions(spec.cluster.min_master_version, (t.generation for t in spec.tpu_pools), catalog, issues)
    warnings = check_all(spec, pools, issues, pools_complete=not failed)
    lifecycle, pools = apply_lifecycle(spec, pools, issues)
    seen: dict[str, str] = {SYSTEM_POOL_NAME: "cluster.system_pool"}
    declared = [(f"tpu_pools[{i}].name", p.name) for i, p in enumerate(spec.tpu_pools)]
    declared += [(f"gpu_pools[{i}].name", p.name) for i, p in enumerate(spec.gpu_pools)]
    declared += [(f"cpu_pools[{i}].name", p.name) for i, p in enumerate(spec.cpu_pools)]
    for path, name in declared:
        claim_pool_name(seen, name, path, issues)
    derived = [p.name for p in pools]
    for name in {n for n in derived if derived.count(n) > 1 and n not in seen}:
        issues.bad(
            "tpu_pools", name, "is a derived slice pool name that clashes with another pool", "unique pool names"
        )
    if replaced:  # follow-ons of a defaulted field: about it, or (a pool's) quotas against capacity
        pool_defaulted = any(r.startswith(("tpu_pools", "gpu_pools")) for r in replaced)
        found = issues.issues[len(prior) :]
        issues.issues[len(prior) :] = [
            i for i in found if not derived_from(i, list(replaced)) and not (pool_defaulted and i.path == "teams")
        ]
    issues.raise_if_any(source)
    teams = plan_teams(
        spec.teams,
        environment=spec.environment,
        project_id=spec.project_id,
        kubernetes_version=spec.platform.kubernetes_version,
        classes=spec.platform.priority_classes,
        checkpoints=spec.platform.checkpoints.enabled,
        catalog=catalog,
        pools=pools,
        base=cpu_base(spec.cpu_pools, len(spec.teams), catalog),
    )
    planned = plan_all(spec, pools, teams, catalog, ladders)
    teams = with_queues(teams, team_shares(planned.queues), catalog)  # quotas follow the queue shares
    return EnvironmentPlan(
        spec=spec,
        cluster=cluster,
        pools=tuple(pools),
        source=source,
        warnings=(*issues.warnings, *warnings),
        teams=teams,
        queues=planned.queues,
        alerts=planned.alerts,
        quotas=planned.quotas,
        lifecycle=lifecycle,
        ladders=ladders,
        declared_pools=tuple(sources),
        cpu_pools=tuple(cpu_pools),
    )


def parse_environment(data: Any, *, source: str = "") -> EnvironmentSpec:
    spec, issues = parse_dataclass(EnvironmentSpec, data)
    if spec is None or issues:
        raise ConfigError(issues, source)
    return spec


def load_environment(path: str | Path, *, catalog: Catalog | None = None, fleet: bool = True) -> EnvironmentPlan:
    """Read, parse and validate one environment file; every problem is a ConfigError. A fleet manager's
    workers are loaded from the same folder and checked with it (``fleet=False``: not resolved)."""
    path = Path(path)
    source = str(path)
    try:
        data = load_config_file(path)
    except ConfigInputError as err:
        raise ConfigError(err.issues, source) from None
    plan = _plan_data(data, source=source, expected_name=path.stem, catalog=catalog)
    if not fleet or plan.spec.fleet is None:
        return plan
    catalog = catalog or load_catalog()
    return with_fleet(plan, path.parent, lambda p: load_environment(p, catalog=catalog, fleet=False), catalog)


def load_environment_text(
    text: str, *, source: str = "<config>", expected_name: str | None = None, catalog: Catalog | None = None
) -> EnvironmentPlan:
    try:
        data = parse_config_text(text)
    except ConfigInputError as err:
        raise ConfigError(err.issues, source) from None
    return _plan_data(data, source=source, expected_name=expected_name, catalog=catalog)


def _plan_data(data: Any, *, source: str, expected_name: str | None, catalog: Catalog | None) -> EnvironmentPlan:
    # lenient: a field that does not parse (max_nodes: "four") keeps its default, so the rules still
    # check the rest of the file (topology: 3x3) and every mistake is reported at once
    spec, issues, replaced = parse_lenient(EnvironmentSpec, data)
    if spec is None:
        raise ConfigError(issues, source)
    if expected_name is not None and spec.environment != expected_name:
        issues.append(
            ConfigIssue("environment", f"{show(spec.environment)} does not match the file name", expected_name)
        )
    # unknown keys (already in ``issues``) do not stop the checks of the known fields: all at once
    return plan_environment(spec, source=source, catalog=catalog, prior=issues, replaced=replaced)
