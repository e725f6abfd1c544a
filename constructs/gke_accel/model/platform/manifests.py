"""Every Kubernetes object the platform declares, as plain manifests (API field names).

This is the single source for both outputs: ``gke-accel manifests`` writes these as YAML, and the
constructs turn the same dicts into typed ``kubernetes_*_v1`` resources. A team's objects are its
plan's (``model/teams/manifests.py``); the driver installers are ``driver_manifests.py``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.model.platform.driver_manifests import driver_installers
from gke_accel.model.platform.spec import PlatformSpec
from gke_accel.model.pools.spec import GpuPoolSpec
from gke_accel.model.teams.accelerators import EXTENDED_RESOURCES, quota_key
from gke_accel.model.teams.manifests import MANAGED_BY, Manifest, team_manifests
from gke_accel.model.teams.manifests import meta as _meta
from gke_accel.model.teams.plan import WORKLOAD_KSA, TeamPlan, gib_quantity
from gke_accel.model.teams.spec import PriorityClassesSpec


def priority_classes(pcs: PriorityClassesSpec, kueue: bool = False) -> list[Manifest]:
    """The three pod PriorityClasses. With Kueue (``kueue``) none preempts (``preemptionPolicy: Never``):
    Kueue orders and preempts workloads by the classes' values (and the priority fence keeps teams to
    their own classes), and it must be the only preemptor, since kube-scheduler would otherwise evict an
    admitted pod for a higher-priority one Kueue also counts (code review R6). Without Kueue the scheduler
    is the only preemptor and inference and training may preempt."""
    preempt = "Never" if kueue else "PreemptLowerPriority"
    by_kueue = " (through Kueue)" if kueue else ""
    rows = [
        (pcs.inference, False, preempt, f"Online inference: may preempt training and batch at peaks{by_kueue}"),
        (pcs.training, True, preempt, f"Training (the default): may preempt batch{by_kueue}"),
        (pcs.batch, False, "Never", "Batch and experiments: never preempts, is preempted first"),
    ]
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": _meta(pc.name),
            "value": pc.value,
            # Only the default class says so: the API server drops `globalDefault: false`, and a field
            # it drops would show as a change on every `kubectl apply` and `terraform plan`.
            **({"globalDefault": True} if default else {}),
            "preemptionPolicy": policy,
            "description": text,
        }
        for pc, default, policy, text in rows
    ]


def platform_objects(
    classes: PriorityClassesSpec,
    teams: Sequence[TeamPlan],
    gpu_pools: Sequence[GpuPoolSpec],
    catalog: Catalog,
    kueue: bool = False,
) -> list[Manifest]:
    """All Kubernetes objects of the platform: priority classes (none preempting when ``kueue``), each
    team's objects, and the driver installer DaemonSets."""
    objects = priority_classes(classes, kueue)
    for team in teams:
        objects += team_manifests(team)
    return objects + driver_installers(gpu_pools, catalog)


class _PlatformSpecs(Protocol):
    @property
    def platform(self) -> PlatformSpec: ...

    @property
    def gpu_pools(self) -> Sequence[GpuPoolSpec]: ...


class PlannedEnvironment(Protocol):
    """What ``platform_manifests`` reads of an environment's plan (``EnvironmentPlan`` has it)."""

    @property
    def spec(self) -> _PlatformSpecs: ...

    @property
    def teams(self) -> Sequence[TeamPlan]: ...

    @property
    def queues(self) -> object | None: ...


def platform_manifests(plan: PlannedEnvironment, catalog: Catalog | None = None) -> list[Manifest]:
    """``platform_objects`` of an environment's plan."""
    return platform_objects(
        plan.spec.platform.priority_classes,
        plan.teams,
        plan.spec.gpu_pools,
        catalog or load_catalog(),
        kueue=plan.queues is not None,
    )


__all__ = [
    "EXTENDED_RESOURCES",
    "MANAGED_BY",
    "WORKLOAD_KSA",
    "Manifest",
    "gib_quantity",
    "platform_manifests",
    "platform_objects",
    "priority_classes",
    "quota_key",
]
