"""N1 machine types as shapes (vCPU and memory), for GPUs attached to N1 hosts: predefined
``n1-standard|highmem|highcpu-<vCPU>`` and custom ``custom-<vCPU>-<MB>[-ext]`` (rule G2)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gke_accel.catalog import N1Shapes

_PREDEFINED = re.compile(r"n1-(?P<family>[a-z]+)-(?P<vcpu>[0-9]{1,3})")
_CUSTOM = re.compile(r"custom-(?P<vcpu>[0-9]{1,3})-(?P<mb>[0-9]{1,7})(?P<ext>-ext)?")
SHARED_CORE = ("f1-micro", "g1-small")


@dataclass(frozen=True)
class N1Shape:
    machine_type: str
    vcpu: int
    memory_gb: float


def n1_shape(machine_type: str, shapes: N1Shapes) -> N1Shape | str:
    """The shape of an N1 machine type, or why it is not one that can carry a GPU."""
    if machine_type in SHARED_CORE:
        return "is a shared-core machine type: it cannot carry GPUs"
    match = _PREDEFINED.fullmatch(machine_type)
    if match:
        family = shapes.families.get(match["family"])
        vcpu = int(match["vcpu"])
        if family is None or vcpu not in family[0]:
            return "is not an N1 machine type"
        return N1Shape(machine_type, vcpu, round(vcpu * family[1] / 1024, 2))
    match = _CUSTOM.fullmatch(machine_type)
    if not match:
        return "is not an N1 machine type"
    vcpu, mb = int(match["vcpu"]), int(match["mb"])
    if not (vcpu == 1 or (vcpu % 2 == 0 and 2 <= vcpu <= shapes.custom_max_vcpu)):
        return f"is not a custom N1 shape: vCPUs must be 1 or an even number up to {shapes.custom_max_vcpu}"
    if mb % shapes.custom_memory_step_mb:
        return f"is not a custom N1 shape: memory must be a multiple of {shapes.custom_memory_step_mb} MB"
    low = vcpu * shapes.custom_min_mb_per_vcpu
    high = shapes.custom_max_extended_mb if match["ext"] else vcpu * shapes.custom_max_mb_per_vcpu
    if not low <= mb <= high:
        return f"is not a custom N1 shape: {vcpu} vCPUs take {low} to {high} MB"
    return N1Shape(machine_type, vcpu, round(mb / 1024, 2))
