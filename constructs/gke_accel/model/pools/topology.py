"""TPU topology rules (catalog-facts rules T3-T6): shape, chips, and VMs per slice."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gke_accel.catalog import Catalog, TpuGeneration

_TOPOLOGY = re.compile(r"^[1-9][0-9]{0,3}(x[1-9][0-9]{0,3}){1,2}$")
_CUBE_SIDE = 4


@dataclass(frozen=True)
class SliceShape:
    topology: str
    chips: int
    chips_per_vm: int
    machine_type: str

    @property
    def vms(self) -> int:
        return self.chips // self.chips_per_vm

    @property
    def multi_host(self) -> bool:
        return self.vms > 1


def dims(topology: str) -> tuple[int, ...] | None:
    if not _TOPOLOGY.fullmatch(topology):
        return None
    return tuple(int(p) for p in topology.split("x"))


def example_topologies(gen: TpuGeneration, catalog: Catalog) -> list[str]:
    """The valid topologies to show in an error message (all of them for 2D generations)."""
    if gen.dimensions == 2:
        return [t for t, chips in catalog.topologies_2d.items() if _product(t) <= gen.max_chips and chips]
    shapes = []
    if 1 in gen.machine_types.values():
        shapes.append(catalog.single_chip_topology_3d)
    shapes += list(catalog.subcube_topologies_3d)
    shapes += ["4x4x4", "4x4x8", "4x8x8", "8x8x8", "..."]
    return shapes


def _product(topology: str) -> int:
    parts = dims(topology)
    return math.prod(parts) if parts else 0


def topology_problem(gen: TpuGeneration, topology: str, catalog: Catalog) -> str | None:
    """Why ``topology`` is not valid for ``gen``, or None when it is."""
    parts = dims(topology)
    if parts is None or len(parts) != gen.dimensions:
        return f"is not a {gen.dimensions}D topology (AxB{'xC' if gen.dimensions == 3 else ''}) for {gen.name}"
    if gen.dimensions == 2:
        if topology not in catalog.topologies_2d:
            return f"is not valid for {gen.name}"
        return None
    if topology == catalog.single_chip_topology_3d:
        return None if 1 in gen.machine_types.values() else f"is not valid for {gen.name}"
    if topology in catalog.subcube_topologies_3d:
        return None
    if any(p % _CUBE_SIDE for p in parts):
        return f"is not valid for {gen.name}: beyond the sub-cube shapes every side must be a multiple of 4"
    if list(parts) != sorted(parts):
        return f"is not valid for {gen.name}: write sides in non-decreasing order ({'x'.join(map(str, sorted(parts)))})"
    if math.prod(parts) > gen.max_chips:
        return f"is too large for {gen.name}: {math.prod(parts)} chips, at most {gen.max_chips}"
    return None


def allowed_chips_per_vm(gen: TpuGeneration, topology: str, catalog: Catalog) -> tuple[int, ...]:
    """Chips per VM (machine type) the topology can use, preferred first."""
    if gen.dimensions == 2:
        return tuple(c for c in catalog.topologies_2d.get(topology, ()) if c in gen.machine_types.values())
    if topology == catalog.single_chip_topology_3d:
        return (1,)
    return tuple(sorted((c for c in gen.machine_types.values() if c > 1), reverse=True))


def slice_shape(gen: TpuGeneration, topology: str, chips_per_vm: int) -> SliceShape:
    machine = gen.machine_for_chips(chips_per_vm)
    assert machine is not None
    return SliceShape(topology, _product(topology), chips_per_vm, machine)
