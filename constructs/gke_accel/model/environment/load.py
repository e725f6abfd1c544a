"""One environment: parse ``config/<env>.yaml``, validate everything, derive every node pool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.cluster.plan import plan_cluster
from gke_accel.model.core.errors import ConfigError, ConfigIssue, IssueCollector
from gke_accel.model.core.names import DNS_LABEL, check_labels, check_project_id, check_region, claim_pool_name
from gke_accel.model.core.parse import parse_dataclass
from gke_accel.model.environment.plan import SYSTEM_POOL_NAME, EnvironmentPlan
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.environment.versions import check_min_versions
from gke_accel.model.observability.rules import check_observability
from gke_accel.model.platform.rules import check_platform
from gke_accel.model.pools.gpu_pool import plan_gpu_pool
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.tpu_pool import plan_tpu_pool


def _check_environment(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    if not DNS_LABEL.match(spec.environment):
        issues.bad("environment", spec.environment, "is not a valid environment name", "a DNS label such as dev")
    check_project_id(spec.project_id, "project_id", issues)
    check_region(spec.region, "region", issues)
    check_labels(spec.labels, "labels", issues)
    b = spec.backend
    if b.type == "gcs" and not b.bucket:
        issues.bad("backend.bucket", None, "is required for a gcs backend", "a GCS bucket name for Terraform state")
    if b.type == "local" and b.bucket:
        issues.bad("backend.bucket", b.bucket, "is only used with type 'gcs'", "leave it out, or type: gcs")


def plan_environment(spec: EnvironmentSpec, *, source: str = "", catalog: Catalog | None = None) -> EnvironmentPlan:
    """Validate an environment spec; raise ConfigError listing every issue found."""
    catalog = catalog or load_catalog()
    issues = IssueCollector()
    _check_environment(spec, issues)
    cluster = plan_cluster(spec.cluster, region=spec.region, issues=issues, catalog=catalog)
    pools: list[NodePoolPlan] = []
    for i, tpu in enumerate(spec.tpu_pools):
        pools += plan_tpu_pool(
            tpu,
            region=spec.region,
            cluster_zones=cluster.node_zones,
            path=f"tpu_pools[{i}]",
            issues=issues,
            catalog=catalog,
        )
    for i, gpu in enumerate(spec.gpu_pools):
        pools += plan_gpu_pool(
            gpu,
            region=spec.region,
            cluster_zones=cluster.node_zones,
            path=f"gpu_pools[{i}]",
            issues=issues,
            catalog=catalog,
        )
    check_min_versions(spec.cluster.min_master_version, pools, catalog, issues)
    warnings = check_platform(spec, pools, issues)
    check_observability(spec, pools, issues)
    seen: dict[str, str] = {SYSTEM_POOL_NAME: "cluster.system_pool"}
    declared = [(f"tpu_pools[{i}].name", p.name) for i, p in enumerate(spec.tpu_pools)]
    declared += [(f"gpu_pools[{i}].name", p.name) for i, p in enumerate(spec.gpu_pools)]
    for path, name in declared:
        claim_pool_name(seen, name, path, issues)
    derived = [p.name for p in pools]
    for name in {n for n in derived if derived.count(n) > 1 and n not in seen}:
        issues.bad(
            "tpu_pools", name, "is a derived slice pool name that clashes with another pool", "unique pool names"
        )
    issues.raise_if_any(source)
    return EnvironmentPlan(spec=spec, cluster=cluster, pools=tuple(pools), source=source, warnings=tuple(warnings))


def parse_environment(data: Any, *, source: str = "") -> EnvironmentSpec:
    spec, issues = parse_dataclass(EnvironmentSpec, data)
    if spec is None:
        raise ConfigError(issues, source)
    return spec


def load_environment(path: str | Path, *, catalog: Catalog | None = None) -> EnvironmentPlan:
    """Read, parse and validate one environment file; every problem is a ConfigError."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([ConfigIssue("(file)", f"cannot be read: {exc.strerror or exc}")], source) from None
    return load_environment_text(text, source=source, expected_name=path.stem, catalog=catalog)


def load_environment_text(
    text: str, *, source: str = "<config>", expected_name: str | None = None, catalog: Catalog | None = None
) -> EnvironmentPlan:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "(file)"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError([ConfigIssue(where, f"is not valid YAML: {problem}")], source) from None
    except (ValueError, TypeError, RecursionError) as exc:  # e.g. odd timestamps, deep nesting
        raise ConfigError([ConfigIssue("(file)", f"is not valid YAML: {exc}")], source) from None
    spec = parse_environment(data, source=source)
    if expected_name is not None and spec.environment != expected_name:
        raise ConfigError(
            [ConfigIssue("environment", f"{spec.environment!r} does not match the file name", expected_name)], source
        )
    return plan_environment(spec, source=source, catalog=catalog)
