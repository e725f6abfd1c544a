"""A pool's role: written in the config (``role:``), or derived from the priority classes the teams
that use the pool's accelerator may run (a training class protects; inference rolls; batch only: batch)."""

from __future__ import annotations

from gke_accel.model.lifecycle.plan import RoleSource
from gke_accel.model.lifecycle.spec import PoolRole
from gke_accel.model.lifecycle_planner.config import LifecycleConfig
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec

# When teams of several kinds share a pool, the most protective role wins.
_PRECEDENCE: tuple[PoolRole, ...] = ("training", "inference", "batch")


def accelerator_of(pool: TpuPoolSpec | GpuPoolSpec) -> str | None:
    """The key teams use for the pool's chips in ``accelerators`` (TPU generation or GPU model)."""
    return pool.generation if isinstance(pool, TpuPoolSpec) else pool.gpu


def derive_role(spec: LifecycleConfig, pool: TpuPoolSpec | GpuPoolSpec) -> tuple[PoolRole, RoleSource]:
    if pool.role is not None:
        return pool.role, "config"
    key = accelerator_of(pool)
    pcs = spec.platform.priority_classes
    by_name: dict[str, PoolRole] = {
        pcs.training.name: "training",
        pcs.inference.name: "inference",
        pcs.batch.name: "batch",
    }
    found: set[PoolRole] = set()
    for team in spec.teams:
        # a team with no list may use every class: it says nothing about the pool's role
        if key is not None and key in team.accelerators and team.priority_classes:
            found |= {by_name[c] for c in team.priority_classes if c in by_name}
    for role in _PRECEDENCE:
        if role in found:
            return role, "teams"
    return "dev", "default"
