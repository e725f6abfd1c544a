"""Which accelerator pools were composed on a cluster, and whether ``Teams`` already planned its quotas.

``Teams`` plans the teams against every pool of its cluster (model/environment, the same checks as
``validate``); a pool composed after it would escape that check, so it is refused at construction.
"""

from __future__ import annotations

from typing import Any

from gke_accel.model.core.errors import ConfigError, ConfigIssue

_POOLS = "_gke_accel_pools"
_TEAMS = "_gke_accel_teams"


def register_pool(cluster: Any, pool: Any) -> None:
    """Record ``pool`` (a TpuSlicePool or GpuNodePool) as composed on ``cluster``."""
    pools = getattr(cluster, _POOLS, None)
    if pools is None:
        pools = []
        setattr(cluster, _POOLS, pools)
    pools.append(pool)


def pools_of(cluster: Any) -> list[Any]:
    """Every accelerator pool composed on ``cluster`` so far, in order."""
    return list(getattr(cluster, _POOLS, None) or [])


def mark_planned(cluster: Any, teams_path: str) -> None:
    setattr(cluster, _TEAMS, teams_path)


def claim_after_teams(cluster: Any, path: str) -> None:
    """Refuse a pool composed after the cluster's ``Teams``: its quotas were checked without it."""
    teams = getattr(cluster, _TEAMS, None)
    if teams is not None:
        raise ConfigError(
            [
                ConfigIssue(
                    path,
                    f"is composed after Teams {teams!r}, which already checked the team quotas against "
                    "the cluster's pools",
                    "compose every TpuSlicePool and GpuNodePool of the cluster before its Teams",
                )
            ]
        )
