"""The accelerator catalog: hardware facts as data, with a typed loader."""

from gke_accel.catalog.loader import (
    Catalog,
    DriverInstallerFacts,
    GpuMachine,
    GpuModel,
    MachineSize,
    N1Host,
    N1Limit,
    N1Shapes,
    Price,
    PriceBook,
    TpuGeneration,
    load_catalog,
)
from gke_accel.catalog.zone_facts import ZoneFacts, load_zone_facts

__all__ = [
    "Catalog",
    "DriverInstallerFacts",
    "GpuMachine",
    "GpuModel",
    "MachineSize",
    "N1Host",
    "N1Limit",
    "N1Shapes",
    "Price",
    "PriceBook",
    "TpuGeneration",
    "ZoneFacts",
    "load_catalog",
    "load_zone_facts",
]
