"""Config shape of a fleet (``fleet:`` in the manager's ``config/<env>.yaml``): docs/fleet.md.

The manager environment names its workers, each an environment of the same config folder (its own
cluster, region and project). Jobs are submitted to the manager's LocalQueues; Kueue's MultiKueue
(``kueue.x-k8s.io/multikueue``) copies each one to a worker that admits it and mirrors its status back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Kueue v0.19.2 apis/config/v1beta2 MultiKueue: workerLostTimeout defaults to 15 minutes, gcInterval to 1 minute
DEFAULT_WORKER_LOST_TIMEOUT_SECONDS = 900
DEFAULT_GC_INTERVAL_SECONDS = 60


@dataclass(frozen=True)
class AccessPluginSpec:
    """Kueue's ``multiKueue.clusterProfile.accessProviders`` entry: the provider ``name`` the
    ClusterProfiles list and the plugin ``command`` (a path inside the Kueue controller's pod)."""

    name: str
    command: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class FleetSpec:
    """The manager's workers, in dispatch order, and how the manager reaches them.

    ``dispatch``: ``ordered`` (Kueue's Incremental dispatcher, one worker per round, in ``workers``
    order: the first worker is tried alone, the next one joins when the first has not admitted the job
    within Kueue's round of 5 minutes) or ``all-at-once`` (every worker at once, the first to admit
    wins: fastest, no preference).
    ``access``: ``cluster-profile`` (GKE fleet ClusterProfiles and Workload Identity: no stored secret)
    or ``kubeconfig-secret`` (a Secret ``<worker>-kubeconfig`` in kueue-system that you create; never
    generated: clusters outside GKE, or the local twin).
    ``manager_pools``: the manager may keep accelerator pools of its own (fleet jobs never run there).
    """

    workers: tuple[str, ...] = ()
    dispatch: Literal["ordered", "all-at-once"] = "ordered"
    access: Literal["cluster-profile", "kubeconfig-secret"] = "cluster-profile"
    worker_lost_timeout_seconds: int = DEFAULT_WORKER_LOST_TIMEOUT_SECONDS
    gc_interval_seconds: int = DEFAULT_GC_INTERVAL_SECONDS
    manager_pools: bool = False
    # cluster-profile: the exec plugin Kueue runs for a token (KEP-5339), matched by name to the
    # ClusterProfiles' status.accessProviders; required then (docs/fleet.md "Credentials")
    access_plugin: AccessPluginSpec | None = None
