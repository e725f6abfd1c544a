"""What the posture reads of an environment's spec (``EnvironmentSpec`` has all of it): the package
never imports the environment root."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gke_accel.model.cluster.spec import ClusterSpec
from gke_accel.model.lifecycle.spec import LifecycleSpec
from gke_accel.model.platform.spec import PlatformSpec, TeamSpec
from gke_accel.model.pools.spec import GpuPoolSpec, TpuPoolSpec


class LifecycleConfig(Protocol):
    @property
    def lifecycle(self) -> LifecycleSpec: ...

    @property
    def production(self) -> bool: ...

    @property
    def cluster(self) -> ClusterSpec: ...

    @property
    def tpu_pools(self) -> Sequence[TpuPoolSpec]: ...

    @property
    def gpu_pools(self) -> Sequence[GpuPoolSpec]: ...

    @property
    def teams(self) -> Sequence[TeamSpec]: ...

    @property
    def platform(self) -> PlatformSpec: ...
