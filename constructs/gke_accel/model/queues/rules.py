"""Rules for ``queues:``: reject what Kueue would reject or what can never be satisfied, each naming
the field, the bad value and what is valid."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gke_accel.catalog import load_catalog
from gke_accel.model.core.errors import ConfigIssue, IssueCollector
from gke_accel.model.core.names import DNS_LABEL
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec
from gke_accel.model.queues.flavors import plan_flavors
from gke_accel.model.queues.plan import flavors_of, split_nominal
from gke_accel.model.queues.spec import QueuesSpec
from gke_accel.model.teams.accelerators import accelerator_key
from gke_accel.model.teams.spec import TeamSpec

# Queued provisioning: jobs get their nodes through a ProvisioningRequest, which Kueue creates. Flex-start
# without queued provisioning needs neither Kueue nor a ProvisioningRequest: the cluster autoscaler
# creates flex-start VMs for pending pods (GKE "About GPU obtainability with flex-start").
NEEDS_KUEUE = ("queued",)
# waitForPodsReady's timeout: at least one second (Kueue needs a positive duration; tests use a few
# seconds), at most the 7 days a flex-start VM may run.
MIN_PODS_READY_SECONDS, MAX_PODS_READY_SECONDS = 1, 7 * 24 * 3600


class QueuedConfig(Protocol):
    """What the queue rules read of an environment's spec besides ``queues:`` (``EnvironmentSpec``
    has it; the environment root passes it in)."""

    @property
    def teams(self) -> Sequence[TeamSpec]: ...

    @property
    def tpu_pools(self) -> Sequence[TpuPoolSpec]: ...

    @property
    def gpu_pools(self) -> Sequence[GpuPoolSpec]: ...


def _check_pools_need_kueue(spec: QueuedConfig, issues: IssueCollector) -> None:
    types = [("tpu_pools", i, p.consumption.type) for i, p in enumerate(spec.tpu_pools)]
    types += [("gpu_pools", i, p.consumption.type) for i, p in enumerate(spec.gpu_pools)]
    for kind, i, consumption in types:
        if consumption in NEEDS_KUEUE:
            issues.bad(
                f"{kind}[{i}].consumption",
                consumption,
                "needs Kueue: jobs obtain these nodes through a ProvisioningRequest, which Kueue's "
                "admission check creates",
                "add `queues: {}` (installs Kueue and one queue per team), or another consumption type",
            )


def check_queues(
    spec: QueuedConfig, queues: QueuesSpec | None, pools: Sequence[NodePoolPlan], issues: IssueCollector
) -> None:
    """Add an issue for every mistake in ``queues:`` and for pools that need Kueue without it."""
    if queues is None or not queues.enabled:
        _check_pools_need_kueue(spec, issues)
        return
    catalog = load_catalog()
    if not MIN_PODS_READY_SECONDS <= queues.pods_ready_timeout_seconds <= MAX_PODS_READY_SECONDS:
        issues.bad(
            "queues.pods_ready_timeout_seconds",
            queues.pods_ready_timeout_seconds,
            "is out of range",
            f"{MIN_PODS_READY_SECONDS} to {MAX_PODS_READY_SECONDS} seconds (7 days); Kueue's default is 1800",
        )
    if queues.cohort is not None and not DNS_LABEL.match(queues.cohort):
        issues.bad("queues.cohort", queues.cohort, "is not a valid cohort name", "a DNS label, e.g. the environment")
    team_names = [t.name for t in spec.teams]
    flavors = plan_flavors(pools)
    nominal = split_nominal(spec.teams, flavors, catalog)
    totals: dict[tuple[str, str], dict[str, int]] = {}
    for team in spec.teams:
        for name, amount in team.accelerators.items():
            key = accelerator_key(name, catalog)
            if key is not None and amount > 0:
                per_team = totals.setdefault(key, {})
                per_team[team.name] = per_team.get(team.name, 0) + amount

    for flavor in flavors:
        used = sum(v for (_, fl), v in nominal.items() if fl == flavor.name)
        group = flavors_of((flavor.resource, flavor.accelerator), flavors)
        if used > flavor.chips_max and flavor is group[-1]:
            capacity = sum(f.chips_max for f in group)
            asked = sum(totals.get((flavor.resource, flavor.accelerator), {}).values())
            issues.add(
                ConfigIssue(
                    "teams",
                    f"nominal quotas for {flavor.accelerator} add up to {asked}, above the {capacity} the cohort's "
                    f"pools ({', '.join(p for f in group for p in f.pools)}) can ever hold; Kueue would admit "
                    "jobs that never get nodes",
                    f"at most {capacity} in total: lower teams[].accelerators or raise the pools' maximum size",
                )
            )

    for team_name, choices in queues.teams.items():
        path = f"queues.teams.{team_name}"
        if team_name not in team_names:
            issues.bad(path, team_name, "is not a team of this environment", team_names or "define teams: first")
            continue
        team = spec.teams[team_names.index(team_name)]
        for field_name, limits in (
            ("borrowing_limit", choices.borrowing_limit),
            ("lending_limit", choices.lending_limit),
        ):
            for name, value in limits.items():
                where = f"{path}.{field_name}.{name}"
                key = accelerator_key(name, catalog)
                if key is None:
                    issues.bad(
                        where,
                        name,
                        "is not a GPU model or TPU generation",
                        catalog.gpu_names() + list(catalog.tpu_generations),
                    )
                    continue
                if not flavors_of(key, flavors):
                    provided = sorted({f.accelerator for f in flavors})
                    issues.bad(
                        where,
                        name,
                        f"has no flavor: no pool of this environment provides {key[1]}",
                        provided or "add a pool first",
                    )
                    continue
                if value < 0:
                    issues.bad(where, value, "is out of range", "0 or more")
                    continue
                own = totals.get(key, {}).get(team.name, 0)
                if field_name == "lending_limit" and value > own:
                    issues.bad(where, value, f"is above the team's nominal quota of {own} for {name}", f"0 to {own}")
                if field_name == "borrowing_limit":
                    others = sum(v for t, v in totals.get(key, {}).items() if t != team.name)
                    if value > others:
                        issues.bad(
                            where,
                            value,
                            f"is above what the cohort can lend ({others}: the other teams' nominal quotas for {name})",
                            f"0 to {others}, or leave it out to borrow whatever is idle",
                        )
