"""Config shapes of the lifecycle posture: a pool's role and upgrade settings, the environment's posture.

Frozen dataclasses; ``gke_accel.model.core.parse`` builds them from YAML. What each role means:
``model/lifecycle_planner/posture.py`` and docs/lifecycle.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PoolRole = Literal["training", "inference", "batch", "dev"]
UpgradeStrategy = Literal["surge", "blue-green"]
HostMaintenanceInterval = Literal["AS_NEEDED", "PERIODIC"]
Posture = Literal["by-role", "gke-defaults"]
ExclusionEndBehavior = Literal["UNTIL_END_OF_SUPPORT"]


@dataclass(frozen=True)
class PoolLifecycleSpec:
    """Overrides of the role's defaults for one pool (unset: the role decides).

    ``upgrade``: ``surge`` (rolling, ``max_surge``/``max_unavailable`` nodes at a time) or ``blue-green``
    (a second pool, then drain the first; not with COMPACT placement). ``host_maintenance``: the node's
    ``host_maintenance_policy.maintenance_interval``. ``protect``: a training pool's maintenance exclusion.
    """

    upgrade: UpgradeStrategy | None = None
    max_surge: int | None = None
    max_unavailable: int | None = None
    soak_hours: float | None = None  # blue-green: how long the old pool stays after draining
    host_maintenance: HostMaintenanceInterval | None = None
    protect: bool | None = None  # training: hold minor and node upgrades until end of support


@dataclass(frozen=True)
class LifecycleSpec:
    """The environment's lifecycle posture. ``posture: by-role`` applies each pool role's defaults
    (the default in a ``production`` environment); ``gke-defaults`` leaves GKE's own (the default
    elsewhere). ``exclusion_start``: when the training exclusion starts (default: the maintenance
    window's ``start_time``)."""

    posture: Posture | None = None
    exclusion_start: str | None = None


@dataclass(frozen=True)
class DisruptionBudgetSpec:
    """The cluster disruption budget: the least time between automatic minor (and patch) upgrades of the
    control plane, and so of the nodes (GKE's defaults when unset: 30 days and 24 hours)."""

    minor_interval_days: int | None = None
    patch_interval_hours: int | None = None
