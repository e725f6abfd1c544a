"""The accelerator catalog: hardware facts as data, with a typed loader."""

from gke_accel.catalog.loader import (
    Catalog,
    DriverInstallerFacts,
    GpuMachine,
    GpuModel,
    N1Host,
    N1Limit,
    Price,
    PriceBook,
    TpuGeneration,
    load_catalog,
)

__all__ = [
    "Catalog",
    "DriverInstallerFacts",
    "GpuMachine",
    "GpuModel",
    "N1Host",
    "N1Limit",
    "Price",
    "PriceBook",
    "TpuGeneration",
    "load_catalog",
]
