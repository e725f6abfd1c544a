"""What storage reads of an environment's spec (``EnvironmentSpec`` has all of it): the package never
imports the environment root; the root calls its checks through the capability registry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gke_accel.model.platform.spec import PlatformSpec, TeamSpec
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec
from gke_accel.model.storage.spec import RestartSpec, WeightsSpec


class StorageConfig(Protocol):
    @property
    def environment(self) -> str: ...

    @property
    def project_id(self) -> str: ...

    @property
    def region(self) -> str: ...

    @property
    def restart(self) -> RestartSpec: ...

    @property
    def weights(self) -> WeightsSpec: ...

    @property
    def teams(self) -> Sequence[TeamSpec]: ...

    @property
    def tpu_pools(self) -> Sequence[TpuPoolSpec]: ...

    @property
    def gpu_pools(self) -> Sequence[GpuPoolSpec]: ...

    @property
    def platform(self) -> PlatformSpec: ...
