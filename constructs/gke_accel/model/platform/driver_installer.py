"""Which NVIDIA driver installer DaemonSet variants the environment needs.

A GPU pool with ``driver_mode: daemonset`` needs the variant for its image type and driver version
(``cos-default``, ``cos-latest``, ``ubuntu-default``, ``ubuntu-r570``...); its nodes carry the
``gke-accel/driver-variant`` label that the variant's DaemonSet selects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_accel.model.pools.gpu_pool import driver_variant
from gke_accel.model.pools.spec import GpuPoolSpec


@dataclass(frozen=True)
class InstallerVariant:
    key: str  # e.g. cos-default, ubuntu-r570
    os: str  # cos | ubuntu
    version: str  # default | latest | R570 ...
    partition: bool  # a pool of this variant uses MIG: add the partitioner init container
    pools: tuple[str, ...]


def installer_variants(gpu_pools: Sequence[GpuPoolSpec]) -> list[InstallerVariant]:
    grouped: dict[str, list[GpuPoolSpec]] = {}
    for pool in gpu_pools:
        if pool.driver_mode == "daemonset":
            grouped.setdefault(driver_variant(pool), []).append(pool)
    return [
        InstallerVariant(
            key=key,
            os=key.split("-", 1)[0],
            version=pools[0].driver_version,
            partition=any(p.partition_size for p in pools),
            pools=tuple(p.name for p in pools),
        )
        for key, pools in sorted(grouped.items())
    ]


# Accepted checkov findings (kubernetes framework) on the driver installer DaemonSet: it reproduces
# Google's published installer, which must load a kernel module into the host. It runs only in
# kube-system, which no team can write to; team namespaces enforce Pod Security instead.
INSTALLER_SKIPS = {
    "CKV_K8S_8": "an init container installs the driver and a pause container waits: nothing to probe",
    "CKV_K8S_9": "an init container installs the driver and a pause container waits: nothing to probe",
    "CKV_K8S_10": "as Google publishes it: a CPU request on the installer only",
    "CKV_K8S_11": "no CPU limit, so a driver build is not throttled into a node-startup timeout",
    "CKV_K8S_12": "as Google publishes it: no memory request (the installer is short-lived)",
    "CKV_K8S_13": "no memory limit, so a driver build is never killed half-way",
    "CKV_K8S_15": "images are preloaded on GKE nodes or pinned by digest (imagePullPolicy Never, as published)",
    "CKV_K8S_16": "loads the NVIDIA kernel module into the host: needs a privileged container",
    "CKV_K8S_17": "Google's installer runs in the host PID namespace to load kernel modules",
    "CKV_K8S_19": "Google's installer runs in the host network namespace",
    "CKV_K8S_20": "a privileged container (kernel module install) cannot drop privilege escalation",
    "CKV_K8S_22": "writes the driver to the host through hostPath mounts",
    "CKV_K8S_23": "installs kernel modules as root",
    "CKV_K8S_28": "a privileged container: capabilities are not dropped",
    "CKV_K8S_29": "security context set per container (privileged), as Google publishes it",
    "CKV_K8S_30": "security context set per container (privileged), as Google publishes it",
    "CKV_K8S_31": "a privileged kernel-module installer runs without a seccomp profile",
    "CKV_K8S_37": "a privileged container: capabilities are not dropped",
    "CKV_K8S_40": "installs kernel modules as root (UID 0)",
    "CKV_K8S_43": "images are pinned by digest or preloaded on the node image",
}


def installer_skip_annotations() -> dict[str, str]:
    """checkov's skip annotations (``checkov.io/skip<N>: <check>=<reason>``) for the installer."""
    return {f"checkov.io/skip{i}": f"{check}={reason}" for i, (check, reason) in enumerate(INSTALLER_SKIPS.items(), 1)}
