"""The NVIDIA driver of a GPU pool: GKE-managed (``gpu_driver_version``) or the installer DaemonSet,
and which driver versions, images and MIG/sharing combinations each path allows."""

from __future__ import annotations

from typing import Literal

from gke_accel.catalog import Catalog
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.pools.gpu_machine import GpuHardware
from gke_accel.model.pools.spec import GpuPoolSpec

DriverVersion = Literal["DEFAULT", "LATEST", "INSTALLATION_DISABLED"]


def driver_variant(spec: GpuPoolSpec) -> str:
    """The driver installer variant a daemonset-mode pool needs, e.g. ``cos-default``, ``ubuntu-r570``."""
    os_name = "cos" if spec.image_type.startswith("COS") else "ubuntu"
    return f"{os_name}-{spec.driver_version.lower()}"


def plan_driver(
    spec: GpuPoolSpec, hw: GpuHardware | None, path: str, catalog: Catalog, issues: IssueCollector
) -> DriverVersion:
    """GKE's gpu_driver_version for the pool, and the driver rules: LATEST only on COS; pinned
    branches only through the Ubuntu DaemonSet; the DaemonSet path disables GKE's installer."""
    cos = spec.image_type in catalog.latest_driver_image_types
    if spec.driver_mode == "gke-managed":
        return _gke_managed(spec, cos, path, catalog, issues)
    pinned = sorted(catalog.driver_installer.ubuntu_pinned)
    valid = ["default", "latest"] if cos else ["default", *pinned]
    if spec.driver_version not in valid:
        why = (
            "'latest' is a COS installer option; Ubuntu pins a branch"
            if spec.driver_version == "latest"
            else f"is not a driver version of the {'COS' if cos else 'Ubuntu'} installer DaemonSet"
        )
        issues.bad(
            f"{path}.driver_version",
            spec.driver_version,
            why if spec.driver_version != "latest" else f"is not possible: {why}",
            valid,
        )
    if hw is not None and hw.model.accelerator_type in catalog.driver_installer.unsupported_models:
        issues.bad(
            f"{path}.driver_mode",
            "daemonset",
            f"has no installer variant here for {hw.model.accelerator_type}",
            ["gke-managed"],
        )
    if spec.partition_size is not None and not cos:
        issues.bad(
            f"{path}.partition_size",
            spec.partition_size,
            "needs the COS installer's GPU partitioner: the Ubuntu DaemonSet has none",
            "image_type COS_CONTAINERD, or driver_mode gke-managed",
        )
    if spec.partition_size is not None and spec.sharing is not None:
        issues.bad(
            f"{path}.sharing",
            spec.sharing.strategy,
            "cannot be combined with MIG partitions made by the driver DaemonSet on one pool",
            "no sharing, or driver_mode gke-managed (GKE supports time-sharing on MIG partitions)",
        )
    return "INSTALLATION_DISABLED"


def _gke_managed(spec: GpuPoolSpec, cos: bool, path: str, catalog: Catalog, issues: IssueCollector) -> DriverVersion:
    where = f"{path}.driver_version"
    if spec.driver_version == "latest" and not cos:
        issues.bad(
            where,
            "latest",
            f"needs a COS image, the pool uses {spec.image_type}",
            ["default", "latest with image_type COS_CONTAINERD"],
        )
    elif spec.driver_version in catalog.driver_installer.ubuntu_pinned:
        issues.bad(
            where,
            spec.driver_version,
            "is a pinned driver branch: it needs driver_mode 'daemonset' with image_type UBUNTU_CONTAINERD",
            ["default", "latest"],
        )
    elif spec.driver_version not in ("default", "latest"):
        issues.bad(where, spec.driver_version, "is not a GKE driver version", ["default", "latest"])
    return "LATEST" if spec.driver_version == "latest" else "DEFAULT"
