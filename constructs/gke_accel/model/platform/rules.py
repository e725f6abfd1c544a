"""Rules for teams, quotas, priority classes, checkpoint storage and the driver installer, and the
capacity check of team quotas against what the pools provide."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.core.errors import ConfigIssue, IssueCollector
from gke_accel.model.core.names import DNS_LABEL
from gke_accel.model.platform.capacity import capacity_rows
from gke_accel.model.platform.driver_installer import installer_variants
from gke_accel.model.platform.reserved import RESERVED_HELP, reserved_reason
from gke_accel.model.platform.spec import PlatformSpec
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec
from gke_accel.model.teams.accelerators import SPLIT_HELP, accelerator_key, accelerator_name
from gke_accel.model.teams.compute import needed_compute, nominal_chips
from gke_accel.model.teams.ingress import check_ingress_from
from gke_accel.model.teams.plan import team_namespace as team_namespace
from gke_accel.model.teams.plan import team_service_account_id as team_service_account_id
from gke_accel.model.teams.spec import TeamSpec

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")
BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$")
IPV4 = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")
K8S_MINOR = re.compile(r"^1\.(2[5-9]|3[0-9])$")
PRIORITY_MAX, PRIORITY_MIN = 1_000_000_000, -2_147_483_648
GSA_MAX = 30
VAP_MINOR = 30  # ValidatingAdmissionPolicy v1 (GA) from Kubernetes 1.30


class _Queues(Protocol):
    @property
    def enabled(self) -> bool: ...


class PlatformConfig(Protocol):
    """What the platform rules read of an environment's spec (``EnvironmentSpec`` has it): the
    environment root passes the spec in; this package does not import it."""

    @property
    def environment(self) -> str: ...

    @property
    def project_id(self) -> str: ...

    @property
    def teams(self) -> Sequence[TeamSpec]: ...

    @property
    def platform(self) -> PlatformSpec: ...

    @property
    def gpu_pools(self) -> Sequence[GpuPoolSpec]: ...

    @property
    def strict_capacity(self) -> bool: ...

    @property
    def queues(self) -> _Queues | None: ...


def _check_priority_classes(spec: PlatformConfig, issues: IssueCollector) -> set[str]:
    pcs = spec.platform.priority_classes
    roles = {"inference": pcs.inference, "training": pcs.training, "batch": pcs.batch}
    names: set[str] = set()
    for role, pc in roles.items():
        path = f"platform.priority_classes.{role}"
        if not DNS_LABEL.fullmatch(pc.name) or pc.name.startswith("system-"):
            issues.bad(
                f"{path}.name", pc.name, "is not a valid priority class name", "a DNS label not starting with 'system-'"
            )
        if pc.name in names:
            issues.bad(f"{path}.name", pc.name, "is used by another priority class", "unique names")
        names.add(pc.name)
        if not PRIORITY_MIN <= pc.value <= PRIORITY_MAX:
            issues.bad(f"{path}.value", pc.value, "is out of range", f"{PRIORITY_MIN} to {PRIORITY_MAX}")
    if not pcs.inference.value > pcs.training.value > pcs.batch.value:
        issues.bad(
            "platform.priority_classes",
            [pcs.inference.value, pcs.training.value, pcs.batch.value],
            "must order inference above training above batch, so inference can preempt training",
            "inference.value > training.value > batch.value",
        )
    return names


def _check_teams(
    spec: PlatformConfig, class_names: set[str], controllers: Mapping[str, str], issues: IssueCollector
) -> None:
    catalog = load_catalog()
    seen_names: set[str] = set()
    seen_namespaces: set[str] = set()
    for i, team in enumerate(spec.teams):
        path = f"teams[{i}]"
        if not DNS_LABEL.fullmatch(team.name):
            issues.bad(f"{path}.name", team.name, "is not a DNS-1123 label", "lowercase letters, digits and '-'")
        elif len(team_service_account_id(team.name, spec.environment)) > GSA_MAX:
            issues.bad(
                f"{path}.name",
                team.name,
                "is too long for its Google service account "
                f"({team_service_account_id(team.name, spec.environment)!r})",
                f"at most {GSA_MAX - len(spec.environment) - 4} characters",
            )
        if team.name in seen_names:
            issues.bad(f"{path}.name", team.name, "is used by another team", "unique team names")
        seen_names.add(team.name)
        namespace = team_namespace(team.name, team.namespace)
        reserved = reserved_reason(namespace, controllers)
        if not DNS_LABEL.fullmatch(namespace):
            issues.bad(f"{path}.namespace", namespace, "is not a DNS-1123 label", "lowercase letters, digits and '-'")
        elif reserved:
            issues.bad(f"{path}.namespace", namespace, f"is not a namespace a team may own: {reserved}", RESERVED_HELP)
        if namespace in seen_namespaces:
            issues.bad(f"{path}.namespace", namespace, "is used by another team", "one namespace per team")
        seen_namespaces.add(namespace)
        if not EMAIL.fullmatch(team.google_group):
            issues.bad(
                f"{path}.google_group", team.google_group, "is not a Google group address", "e.g. ml-team@example.com"
            )
        for key, amount in team.accelerators.items():
            if accelerator_key(key, catalog) is None:
                issues.bad(
                    f"{path}.accelerators.{key}",
                    key,
                    "is not a GPU model, split GPU or TPU generation",
                    [*catalog.gpu_names(), *catalog.tpu_generations, SPLIT_HELP],
                )
            if amount < 0:
                issues.bad(f"{path}.accelerators.{key}", amount, "is out of range", "0 or more")
        for field_name, value, low in (
            ("cpu", team.cpu, 0),
            ("memory_gib", team.memory_gib, 0),
            ("pods", team.pods, 1),
        ):
            if value is not None and value < low:
                issues.bad(f"{path}.{field_name}", value, "is out of range", f"{low} or more")
        for j, name in enumerate(team.priority_classes):
            if name not in class_names:
                issues.bad(
                    f"{path}.priority_classes[{j}]", name, "is not a defined priority class", sorted(class_names)
                )


def _check_team_ingress(spec: PlatformConfig, issues: IssueCollector) -> None:
    check_ingress_from(spec.teams, {t.name: team_namespace(t.name, t.namespace) for t in spec.teams}, issues)


def _queues_on(spec: PlatformConfig) -> bool:
    return spec.queues is not None and spec.queues.enabled


def checkpoint_bucket(spec: PlatformConfig) -> str:
    """The environment's checkpoint bucket (teams use only ``<team>/`` in it)."""
    return spec.platform.checkpoints.bucket or f"{spec.project_id}-{spec.environment}-checkpoints"


def _check_checkpoints(spec: PlatformConfig, issues: IssueCollector) -> None:
    cp = spec.platform.checkpoints
    bucket = checkpoint_bucket(spec)
    # Cloud Storage also refuses names that read as an IPv4 address; the google provider does not check it.
    if not BUCKET.fullmatch(bucket) or "goog" in bucket or ".." in bucket or IPV4.fullmatch(bucket):
        issues.bad(
            "platform.checkpoints.bucket",
            bucket,
            "is not a valid bucket name",
            "3-63 lowercase letters, digits, '-', '_' or '.', not containing 'goog', not an IP address",
        )
    if cp.noncurrent_version_days < 1:
        issues.bad(
            "platform.checkpoints.noncurrent_version_days", cp.noncurrent_version_days, "is out of range", "1 or more"
        )
    if cp.noncurrent_versions_kept < 1:
        issues.bad(
            "platform.checkpoints.noncurrent_versions_kept", cp.noncurrent_versions_kept, "is out of range", "1 or more"
        )


def _check_capacity(spec: PlatformConfig, pools: Sequence[NodePoolPlan], issues: IssueCollector) -> list[str]:
    catalog = load_catalog()
    rows = {(r.resource, r.accelerator): r for r in capacity_rows(pools, spec.teams, catalog)}
    # as teams[].accelerators spells them (l4, v5e), not the labels (nvidia-l4, tpu-v5-lite-podslice)
    provided = sorted(accelerator_name(a, catalog) for (_, a), r in rows.items() if r.chips_max > 0)
    for i, team in enumerate(spec.teams):
        for name, amount in team.accelerators.items():
            key = accelerator_key(name, catalog)
            if key is not None and amount > 0 and rows[key].chips_max == 0:
                issues.bad(
                    f"teams[{i}].accelerators.{name}",
                    amount,
                    f"is a quota for {key[1]}, which no pool of this environment provides",
                    provided or "add a pool for it first",
                )
    warnings = []
    for row in rows.values():
        if row.over_committed:
            unit = "GPUs" if row.resource.startswith("nvidia") else "TPU chips"
            text = (
                f"team quotas for {row.accelerator} add up to {row.quota_total} {unit}, "
                f"but the pools provide at most {row.chips_max}"
            )
            if spec.strict_capacity:
                issues.add(
                    ConfigIssue(
                        "teams",
                        text,
                        "lower the quotas or raise the pools' maximum size "
                        "(or set strict_capacity: false to allow over-commit)",
                    )
                )
            else:
                warnings.append(f"over-commit: {text}")
    return warnings + _compute_warnings(spec.teams, pools, catalog)


def _compute_warnings(teams: Sequence[TeamSpec], pools: Sequence[NodePoolPlan], catalog: Catalog) -> list[str]:
    """A cpu or memory quota set below what the VMs of the team's accelerator quota take: its
    accelerator pods would wait for cpu or memory, not chips (model/teams/compute.py)."""
    out = []
    for i, team in enumerate(teams):
        cpu, memory = needed_compute(nominal_chips(team, catalog), pools)
        checks = (("cpu", team.cpu, cpu, "cores"), ("memory_gib", team.memory_gib, memory, "GiB"))
        for name, value, needed, unit in checks:
            if value is not None and value < needed:
                out.append(
                    f"teams[{i}].{name}: {value} {unit} is below the {needed} {unit} of the VMs its accelerator quota "
                    f"fills (workload new gives a pod its share of the VM), so its accelerator pods would wait for "
                    f"{name}, not chips; leave it unset to derive it"
                )
    return out


def check_platform(
    spec: PlatformConfig,
    pools: Sequence[NodePoolPlan],
    issues: IssueCollector,
    *,
    controllers: Mapping[str, str],
    pools_complete: bool = True,
) -> list[str]:
    """Add an issue for every mistake in teams, priority classes, checkpoints and the driver
    installer; return the warnings (team quotas over-committing pool capacity). When a pool had a
    mistake (``pools_complete`` false), quotas are not compared with capacity: no follow-on errors.
    ``controllers``: namespace -> the controller installed there (no team may own it)."""
    if not K8S_MINOR.fullmatch(spec.platform.kubernetes_version):
        issues.bad(
            "platform.kubernetes_version",
            spec.platform.kubernetes_version,
            "is not a supported Kubernetes minor version",
            "1.25 to 1.39, e.g. 1.33",
        )
    elif (
        spec.queues is not None
        and spec.queues.enabled
        and int(spec.platform.kubernetes_version.split(".")[1]) < VAP_MINOR
    ):
        issues.bad(
            "platform.kubernetes_version",
            spec.platform.kubernetes_version,
            "is too old for queues: the Kueue priority fence is a ValidatingAdmissionPolicy, "
            "served as admissionregistration.k8s.io/v1 from Kubernetes 1.30",
            "1.30 or later",
        )
    class_names = _check_priority_classes(spec, issues)
    _check_teams(spec, class_names, controllers, issues)
    _check_team_ingress(spec, issues)
    _check_checkpoints(spec, issues)
    variants = installer_variants(spec.gpu_pools)
    if len(variants) > 1 and not spec.platform.driver_installer.multiple_variants:
        detail = "; ".join(f"{v.key} for {', '.join(v.pools)}" for v in variants)
        issues.bad(
            "platform.driver_installer.multiple_variants",
            False,
            f"must be true: daemonset-mode GPU pools need {len(variants)} installer variants ({detail})",
            "true (one DaemonSet per variant), or the same image_type and driver_version on those pools",
        )
    return _check_capacity(spec, pools, issues) if pools_complete else []
