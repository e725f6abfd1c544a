"""Typed view of the accelerator catalog data files (``accelerators.yaml``, ``prices.yaml``).

This module only reads and types the data; the rules that use it live in ``gke_accel.model``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

from gke_accel.catalog._yaml import safe_load
from gke_accel.catalog.general import NodeFit, node_fit
from gke_accel.catalog.zone_facts import ZoneFacts, load_zone_facts

Placement = Literal["compact", "workload_policy"]
GpuAttach = Literal["fixed", "n1"]


@dataclass(frozen=True)
class TpuGeneration:
    name: str
    label: str
    dimensions: int
    tensorcores_per_chip: int
    hbm_gib_per_chip: int
    machine_types: dict[str, int]  # machine type -> chips per VM
    max_chips: int
    multihost_placement: Placement
    name_prefix: str
    name_counts: Literal["chips", "tensorcores"]
    zones: tuple[str, ...]
    min_gke_version: str

    def machine_for_chips(self, chips_per_vm: int) -> str | None:
        for machine, chips in self.machine_types.items():
            if chips == chips_per_vm:
                return machine
        return None

    def slice_name(self, chips: int) -> str:
        count = chips * self.tensorcores_per_chip if self.name_counts == "tensorcores" else chips
        return f"{self.name_prefix}-{count}"


@dataclass(frozen=True)
class GpuModel:
    accelerator_type: str
    aliases: tuple[str, ...]
    memory_gb: int
    attach: GpuAttach
    mig_sizes: tuple[str, ...]


@dataclass(frozen=True)
class GpuMachine:
    machine_type: str
    accelerator_type: str
    count: int
    vcpu: int
    memory_gb: int
    default: bool
    arch: str


@dataclass(frozen=True)
class MachineSize:
    """vCPU and memory (GiB) of a Compute Engine machine type."""

    machine_type: str
    vcpu: int
    memory_gb: int


@dataclass(frozen=True)
class N1Host:
    machine_type: str
    vcpu: int
    memory_gb: int


@dataclass(frozen=True)
class N1Shapes:
    """Rules for N1 machine types (predefined families and custom shapes), memory in MB."""

    families: dict[str, tuple[tuple[int, ...], float]]  # family -> (vCPU sizes, MB per vCPU)
    custom_max_vcpu: int
    custom_min_mb_per_vcpu: int
    custom_max_mb_per_vcpu: int
    custom_memory_step_mb: int
    custom_max_extended_mb: int


@dataclass(frozen=True)
class N1Limit:
    max_vcpu: int
    max_memory_gb: int


@dataclass(frozen=True)
class Price:
    on_demand: float
    spot: float | None
    verify: bool = False


@dataclass(frozen=True)
class PriceBook:
    source: str
    source_date: str
    hours_per_month: int
    cluster_fee_per_hour: float
    tpu_per_chip_hour: dict[str, Price]
    machine_per_hour: dict[str, Price]
    n1_gpu_per_hour: dict[str, Price]
    disk_per_gb_month: dict[str, float] = field(default_factory=dict)  # boot disk type -> USD


@dataclass(frozen=True)
class DriverInstallerFacts:
    """Google's NVIDIA driver installer DaemonSet: names and pinned images (driver_installer.yaml)."""

    name: str
    namespace: str
    priority_class: str
    pause_image: str
    partition_image: str
    cos_installer_image: str
    ubuntu_installer_image: str
    ubuntu_pinned: dict[str, str]  # branch (R570) -> driver version
    unsupported_models: tuple[str, ...]


@dataclass(frozen=True)
class Catalog:
    tpu_generations: dict[str, TpuGeneration]
    topologies_2d: dict[str, tuple[int, ...]]  # topology -> allowed chips per VM
    subcube_topologies_3d: tuple[str, ...]
    single_chip_topology_3d: str
    gpu_models: dict[str, GpuModel]
    gpu_machines: dict[str, GpuMachine]
    n1_limits: dict[str, dict[int, N1Limit]]
    n1_hosts: dict[str, N1Host]
    n1_shapes: N1Shapes
    n1_default_host: dict[int, str]
    flex_start_compact_families: tuple[str, ...]  # machine-type prefixes
    sharing_strategies: tuple[str, ...]
    max_shared_clients_per_gpu: int
    driver_versions: tuple[str, ...]
    image_types: tuple[str, ...]
    latest_driver_image_types: tuple[str, ...]
    prices: PriceBook
    driver_installer: DriverInstallerFacts
    zones: ZoneFacts
    tpu_machine_sizes: dict[str, MachineSize] = field(default_factory=dict)
    general_machines: dict[str, MachineSize] = field(default_factory=dict)  # CPU pools, the system pool
    default_cpu_machine: str = ""  # a CPU pool's machine unless it names one
    node_fit: NodeFit = field(default_factory=lambda: NodeFit(1000, 2048, 2.0))

    def machine_size(self, machine_type: str) -> MachineSize | None:
        """vCPU and memory of a TPU host, GPU machine, listed N1 host or listed general-purpose machine."""
        if machine_type in self.tpu_machine_sizes:
            return self.tpu_machine_sizes[machine_type]
        if machine_type in self.general_machines:
            return self.general_machines[machine_type]
        gpu = self.gpu_machines.get(machine_type)
        if gpu is not None:
            return MachineSize(machine_type, gpu.vcpu, gpu.memory_gb)
        n1 = self.n1_hosts.get(machine_type)
        return None if n1 is None else MachineSize(machine_type, n1.vcpu, n1.memory_gb)

    def gpu_model(self, name: str) -> GpuModel | None:
        """Find a GPU model by accelerator type (``nvidia-l4``) or alias (``l4``), case-insensitively."""
        key = name.strip().lower()
        if key in self.gpu_models:
            return self.gpu_models[key]
        for model in self.gpu_models.values():
            if key in model.aliases:
                return model
        return None

    def gpu_names(self) -> list[str]:
        return sorted(alias for m in self.gpu_models.values() for alias in m.aliases)

    def machines_for_gpu(self, accelerator_type: str) -> list[GpuMachine]:
        return [m for m in self.gpu_machines.values() if m.accelerator_type == accelerator_type]


def _read_yaml(name: str) -> dict[str, Any]:
    text = resources.files("gke_accel.catalog").joinpath(name).read_text(encoding="utf-8")
    data = safe_load(text)
    if not isinstance(data, dict):
        raise ValueError(f"catalog file {name} must hold a mapping")
    return data


def _price(raw: dict[str, Any]) -> Price:
    spot = raw.get("spot")
    return Price(float(raw["on_demand"]), None if spot is None else float(spot), bool(raw.get("verify", False)))


def _tpu_generation(name: str, raw: dict[str, Any], subcube_chips: int, zones: ZoneFacts) -> TpuGeneration:
    max_chips = int(raw["max_chips"]) if "max_chips" in raw else int(raw["max_cubes"]) * subcube_chips
    return TpuGeneration(
        name=name,
        label=raw["label"],
        dimensions=int(raw["dimensions"]),
        tensorcores_per_chip=int(raw["tensorcores_per_chip"]),
        hbm_gib_per_chip=int(raw["hbm_gib_per_chip"]),
        machine_types={str(k): int(v) for k, v in raw["machine_types"].items()},
        max_chips=max_chips,
        multihost_placement=raw["multihost_placement"],
        name_prefix=raw["name_prefix"],
        name_counts=raw["name_counts"],
        zones=zones.zones_for("tpu", name),  # every zone a source lists (zones.yaml)
        min_gke_version=str(raw["min_gke_version"]),
    )


@functools.cache
def load_catalog() -> Catalog:
    """Load and type the catalog once per process."""
    acc = _read_yaml("accelerators.yaml")
    pr = _read_yaml("prices.yaml")
    di = _read_yaml("driver_installer.yaml")
    tpu, gpu, general = acc["tpu"], acc["gpu"], acc["general"]["machines"]  # general: CPU machines
    cube_chips = 64  # one 4x4x4 cube
    zones = load_zone_facts()
    return Catalog(
        tpu_generations={n: _tpu_generation(n, r, cube_chips, zones) for n, r in tpu["generations"].items()},
        topologies_2d={str(k): tuple(int(c) for c in v) for k, v in tpu["topologies_2d"].items()},
        subcube_topologies_3d=tuple(tpu["subcube_topologies_3d"]),
        single_chip_topology_3d=str(tpu["single_chip_topology_3d"]),
        gpu_models={
            n: GpuModel(n, tuple(r["aliases"]), int(r["memory_gb"]), r["attach"], tuple(r.get("mig_sizes", ())))
            for n, r in gpu["models"].items()
        },
        gpu_machines={
            n: GpuMachine(
                n,
                r["gpu"],
                int(r["count"]),
                int(r["vcpu"]),
                int(r["memory_gb"]),
                bool(r.get("default", False)),
                str(r.get("arch", "amd64")),
            )
            for n, r in gpu["machine_types"].items()
        },
        n1_limits={
            gpu_type: {int(c): N1Limit(int(v["max_vcpu"]), int(v["max_memory_gb"])) for c, v in counts.items()}
            for gpu_type, counts in gpu["n1_attachable"].items()
        },
        n1_hosts={n: N1Host(n, int(r["vcpu"]), int(r["memory_gb"])) for n, r in gpu["n1_hosts"].items()},
        n1_shapes=N1Shapes(
            families={
                str(k): (tuple(int(c) for c in v["vcpus"]), float(v["mb_per_vcpu"]))
                for k, v in gpu["n1_shapes"].items()
            },
            custom_max_vcpu=int(gpu["n1_custom"]["max_vcpu"]),
            custom_min_mb_per_vcpu=int(gpu["n1_custom"]["min_mb_per_vcpu"]),
            custom_max_mb_per_vcpu=int(gpu["n1_custom"]["max_mb_per_vcpu"]),
            custom_memory_step_mb=int(gpu["n1_custom"]["memory_step_mb"]),
            custom_max_extended_mb=int(gpu["n1_custom"]["max_extended_mb"]),
        ),
        n1_default_host={int(k): str(v) for k, v in gpu["n1_default_host"].items()},
        flex_start_compact_families=tuple(gpu["flex_start_compact_families"]),
        sharing_strategies=tuple(gpu["sharing_strategies"]),
        max_shared_clients_per_gpu=int(gpu["max_shared_clients_per_gpu"]),
        driver_versions=tuple(gpu["driver_versions"]),
        image_types=tuple(gpu["image_types"]),
        latest_driver_image_types=tuple(gpu["latest_driver_image_types"]),
        prices=PriceBook(
            source=str(pr["source"]),
            source_date=str(pr["source_date"]),
            hours_per_month=int(pr["hours_per_month"]),
            cluster_fee_per_hour=float(pr["cluster_fee_per_hour"]),
            tpu_per_chip_hour={k: _price(v) for k, v in pr["tpu_per_chip_hour"].items()},
            machine_per_hour={k: _price(v) for k, v in pr["machine_per_hour"].items()},
            n1_gpu_per_hour={k: _price(v) for k, v in pr["n1_gpu_per_hour"].items()},
            disk_per_gb_month={str(k): float(v) for k, v in (pr.get("disk_per_gb_month") or {}).items()},
        ),
        driver_installer=DriverInstallerFacts(
            name=str(di["name"]),
            namespace=str(di["namespace"]),
            priority_class=str(di["priority_class"]),
            pause_image=str(di["pause_image"]),
            partition_image=str(di["partition_image"]),
            cos_installer_image=str(di["cos_installer_image"]),
            ubuntu_installer_image=str(di["ubuntu_installer_image"]),
            ubuntu_pinned={str(k): str(v) for k, v in di["ubuntu_pinned"].items()},
            unsupported_models=tuple(di["unsupported_models"]),
        ),
        zones=zones,
        tpu_machine_sizes={
            str(n): MachineSize(str(n), int(r["vcpu"]), int(r["memory_gb"])) for n, r in tpu["machine_sizes"].items()
        },
        general_machines={str(n): MachineSize(str(n), int(r["vcpu"]), int(r["memory_gb"])) for n, r in general.items()},
        default_cpu_machine=str(acc["general"]["default_cpu_machine"]),
        node_fit=node_fit(acc["node_fit"]),
    )
