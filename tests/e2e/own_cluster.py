"""A control plane of a test module's own (``LocalCluster``: etcd, kube-apiserver, the controllers),
with kube-scheduler and kwok when asked, stopped by PID when the block ends however it ends. Where a
binary is missing it skips on a laptop and fails in CI (tests/require.py)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from gke_accel.twin.cluster import CONTROL_PLANE, DEFAULT_CONTROLLERS, LocalCluster, find_binaries
from require import require_or_skip


@contextmanager
def own_cluster(
    state: Path,
    *,
    controllers: Sequence[str] = DEFAULT_CONTROLLERS,
    scheduler: bool = True,
    kwok: bool = True,
    complete_jobs: bool = True,
) -> Iterator[LocalCluster]:
    """``complete_jobs``: kwok's own stage completes Job pods at once (False: they run until deleted)."""
    need = (*CONTROL_PLANE, *(("kube-scheduler",) if scheduler else ()), *(("kwok",) if kwok else ()))
    bins, reason = find_binaries(need)
    if bins is None:
        require_or_skip(reason)
    with LocalCluster.start(state, controllers=controllers) as cluster:
        if scheduler:
            cluster.start_scheduler()
        if kwok:
            cluster.start_kwok(complete_jobs=complete_jobs)
        yield cluster
