"""A team's cpu and memory quota when its config leaves them out: room for every accelerator node the
team may hold at once, plus a base for its CPU-only pods.

A pod of ``gke-accel workload new`` that takes every chip of a VM asks for the whole VM's cpu and
memory (what GKE leaves for Pods, less its DaemonSets: ``model/pools/allocatable.py``). A fixed cpu
quota therefore caps a team's chips too: with 64 cpu a team could run one v5e 2x4 slice (two
ct5lp-hightpu-4t VMs of 112 vCPU) and never reach its 16-chip nominal share or borrow an idle slice.
So, unless the team sets ``cpu``/``memory_gib``, its quota is the base plus, per accelerator, the
VMs its most chips fill (``ceil(chips / chips per node)``; of the pool whose VMs are largest when
several pools carry that accelerator). "Most chips" is its nominal quota without queues and, with
Kueue, its ceiling: nominal plus the most it may borrow (``model/queues``); the ResourceQuota and the
ClusterQueue's cpu and memory then agree with the chips.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gke_accel.catalog import Catalog
from gke_accel.model.pools.allocatable import SYSTEM_DAEMONS_CPU_MILLIS, SYSTEM_DAEMONS_MEMORY_MIB, allocatable_for
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.node_shape import node_shape
from gke_accel.model.pools.spec import CpuPoolSpec
from gke_accel.model.teams.accelerators import accelerator_key
from gke_accel.model.teams.spec import TeamSpec

# besides accelerator nodes: a team's CPU-only pods (notebooks, data preparation), at most; with
# ``cpu_pools`` each team's base is its equal share of what the CPU pools hold at their largest size
# (``cpu_base``), so the cpu-memory quota never promises CPU-only room the pools cannot give
BASE_CPU, BASE_MEMORY_GIB = 64, 256
# per VM of a machine type whose size the catalog does not list (ct4p): workload new's modest pod size
UNSIZED_VM_CPU, UNSIZED_VM_MEMORY_GIB = 8, 32

AcceleratorKey = tuple[str, str]  # (resource, accelerator), as ``accelerator_key`` gives it


@dataclass(frozen=True)
class TeamCompute:
    """The team's cpu (cores) and memory (GiB) quota, and whether it was derived (not set in config)."""

    cpu: int
    memory_gib: int
    derived: bool


def vm_room(pool: NodePoolPlan, chips: int) -> tuple[int, int]:
    """(millicores, MiB) that pods holding ``chips`` of ``pool``'s accelerator take at most: the VMs
    those chips fill, each as much as GKE and its DaemonSets leave for Pods."""
    shape = node_shape(pool)
    vms = math.ceil(chips / max(1, shape.allocatable))
    if shape.machine is None:
        return vms * UNSIZED_VM_CPU * 1000, vms * UNSIZED_VM_MEMORY_GIB * 1024
    cpu = shape.machine.cpu_millis - SYSTEM_DAEMONS_CPU_MILLIS
    memory = shape.machine.memory_mib - SYSTEM_DAEMONS_MEMORY_MIB
    return vms * cpu, vms * memory


def nominal_chips(team: TeamSpec, catalog: Catalog) -> dict[AcceleratorKey, int]:
    """Per accelerator, the chips of the team's ``accelerators`` (its quota without queues)."""
    out: dict[AcceleratorKey, int] = {}
    for name, amount in team.accelerators.items():
        key = accelerator_key(name, catalog)
        if key is not None and amount > 0:
            out[key] = out.get(key, 0) + amount
    return out


def _vms_room(chips: Mapping[AcceleratorKey, int], pools: Sequence[NodePoolPlan]) -> tuple[int, int]:
    """(millicores, MiB) of the VMs ``chips`` fill, per accelerator on its pool with the largest VMs."""
    millis = mib = 0
    for key, n in sorted(chips.items()):
        rooms = [vm_room(p, n) for p in pools if n > 0 and p.kind != "system" and (p.resource, p.unit) == key]
        if rooms:
            millis += max(r[0] for r in rooms)
            mib += max(r[1] for r in rooms)
    return millis, mib


def cpu_base(cpu_pools: Sequence[CpuPoolSpec], teams: int, catalog: Catalog) -> tuple[int, int]:
    """(cores, GiB) of each team's CPU-only base: ``BASE_CPU``/``BASE_MEMORY_GIB`` without CPU pools,
    else at most an equal share of the pools' allocatable (less GKE's DaemonSets) at their largest size."""
    if not cpu_pools:
        return BASE_CPU, BASE_MEMORY_GIB
    millis = mib = 0
    for pool in cpu_pools:
        size = catalog.machine_size(pool.machine_type or catalog.default_cpu_machine)
        if size is None:
            continue
        node = allocatable_for(size.vcpu, size.memory_gb)
        millis += max(0, pool.max_nodes) * max(0, node.cpu_millis - SYSTEM_DAEMONS_CPU_MILLIS)
        mib += max(0, pool.max_nodes) * max(0, node.memory_mib - SYSTEM_DAEMONS_MEMORY_MIB)
    share = max(1, teams)
    return min(BASE_CPU, millis // 1000 // share), min(BASE_MEMORY_GIB, mib // 1024 // share)


def team_compute(
    team: TeamSpec,
    chips: Mapping[AcceleratorKey, int],
    pools: Sequence[NodePoolPlan],
    base: tuple[int, int] = (BASE_CPU, BASE_MEMORY_GIB),
) -> TeamCompute:
    """The team's cpu and memory quota: as configured, else derived from ``chips`` (the most it may
    hold at once per accelerator) on ``pools``, plus ``base`` (``cpu_base``; see the module docstring)."""
    if team.cpu is not None and team.memory_gib is not None:
        return TeamCompute(team.cpu, team.memory_gib, derived=False)
    millis, mib = _vms_room(chips, pools)
    cpu = team.cpu if team.cpu is not None else base[0] + math.ceil(millis / 1000)
    memory = team.memory_gib if team.memory_gib is not None else base[1] + math.ceil(mib / 1024)
    return TeamCompute(cpu, memory, derived=True)


def needed_compute(chips: Mapping[AcceleratorKey, int], pools: Sequence[NodePoolPlan]) -> tuple[int, int]:
    """(cores, GiB) the VMs of ``chips`` take, without the base: what a configured quota is checked against."""
    millis, mib = _vms_room(chips, pools)
    return math.ceil(millis / 1000), math.ceil(mib / 1024)
