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
