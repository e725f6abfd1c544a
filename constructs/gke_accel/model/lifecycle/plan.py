"""The derived lifecycle of one pool and of the cluster: what the constructs render and synth shows.

Plain dataclasses only (no rules, no imports from pools), so ``NodePoolPlan`` may carry one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gke_accel.model.lifecycle.spec import PoolRole

RoleSource = Literal["config", "teams", "default"]


@dataclass(frozen=True)
class PoolLifecyclePlan:
    """How GKE may upgrade, repair and maintain one node pool.

    ``strategy`` None leaves GKE's default (surge 1/0) unrendered; ``protected`` means the pool's role asked
    for the cluster's training exclusion (NO_MINOR_OR_NODE_UPGRADES until end of support)."""

    role: PoolRole
    role_source: RoleSource
    strategy: Literal["SURGE", "BLUE_GREEN"] | None = None
    max_surge: int | None = None
    max_unavailable: int | None = None
    soak_seconds: int | None = None
    host_maintenance: Literal["AS_NEEDED", "PERIODIC"] | None = None
    protected: bool = False
    whole_slice: bool = False  # every node of the slice (or gang pool) upgrades at once
    gang_nodes: int | None = None  # nodes that stop together: a multi-host slice's VMs, a COMPACT pool's nodes

    def describe(self) -> str:
        """One short line for synth's summary."""
        if self.strategy is None:
            upgrade = "GKE default upgrades"
        elif self.strategy == "BLUE_GREEN":
            upgrade = "blue-green"
        elif self.whole_slice:
            upgrade = f"all {self.max_unavailable} nodes at once (surge 0)"
        else:
            upgrade = f"surge {self.max_surge}/{self.max_unavailable}"
        parts = [upgrade]
        if self.protected:
            parts.append("held to end of support")
        if self.host_maintenance:
            parts.append(f"host maintenance {self.host_maintenance}")
        return ", ".join(parts)


@dataclass(frozen=True)
class DerivedExclusion:
    name: str
    start_time: str
    scope: Literal["NO_MINOR_OR_NODE_UPGRADES"] = "NO_MINOR_OR_NODE_UPGRADES"
    end_time_behavior: Literal["UNTIL_END_OF_SUPPORT"] = "UNTIL_END_OF_SUPPORT"


@dataclass(frozen=True)
class LifecyclePlan:
    """Per pool spec name, the pool's lifecycle; and what the cluster gets from the pools' roles."""

    posture: Literal["by-role", "gke-defaults"]
    pools: dict[str, PoolLifecyclePlan]
    exclusion: DerivedExclusion | None = None
