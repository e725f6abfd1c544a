"""Fixtures of the real-Kubernetes tier. Every test here is marked ``e2e`` (``make e2e`` runs them,
``make test`` deselects them); without the binaries from tools/k8s/build.sh they skip with the reason.

- ``cluster``: one control plane for the whole session (etcd, kube-apiserver, kube-controller-manager).
- ``scheduling_cluster``: the same cluster with kube-scheduler and kwok running (fake nodes go Ready,
  pods bound to them go Running).
- ``fresh_cluster``: a factory for a new, empty control plane (stopped at the test's end), for tests that
  need a cluster nobody else has touched (e.g. "applies to an empty cluster").
- ``namespace``: a new namespace for one test, deleted afterwards.
- ``scheduling_control_plane``: like ``control_plane`` (for modules with clusters of their own), and
  kube-scheduler and kwok are built too.
"""

from __future__ import annotations

import itertools
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from localcluster import CONTROL_PLANE, LocalCluster, find_binaries

HERE = Path(__file__).resolve().parent
_counter = itertools.count()


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_configure(config: pytest.Config) -> None:
    """A SIGTERM (a CI timeout, ``kill``) ends the run like Ctrl-C, so pytest tears the fixtures down
    and every server started here is stopped by PID instead of being left running."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)


def _require(need: tuple[str, ...] = CONTROL_PLANE) -> None:
    bins, reason = find_binaries(need)
    if bins is None:
        if os.environ.get("GKE_ACCEL_E2E_REQUIRED") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def control_plane() -> None:
    """For modules that start their own cluster: skip (fail in CI) where the binaries are missing."""
    _require()


@pytest.fixture(scope="session")
def scheduling_control_plane(control_plane: None) -> None:
    """For modules that start their own cluster with kube-scheduler and kwok (queue scenarios, whole
    environments): skip (fail in CI) where those binaries are missing."""
    _require(("kube-scheduler", "kwok"))


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    _require()
    c = LocalCluster.start(tmp_path_factory.mktemp("k8s-session"))
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="session")
def scheduling_cluster(cluster: LocalCluster) -> LocalCluster:
    _require(("kube-scheduler", "kwok"))
    cluster.start_scheduler()
    cluster.start_kwok()
    return cluster


@pytest.fixture
def fresh_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], LocalCluster]]:
    _require()
    started: list[LocalCluster] = []

    def make() -> LocalCluster:
        c = LocalCluster.start(tmp_path_factory.mktemp("k8s-fresh"))
        started.append(c)
        return c

    try:
        yield make
    finally:
        for c in started:
            c.stop()


@pytest.fixture
def namespace(cluster: LocalCluster) -> Iterator[str]:
    name = f"e2e-{os.getpid()}-{next(_counter)}"
    cluster.kubectl("create", "namespace", name)
    try:
        yield name
    finally:
        cluster.delete_namespace(name, wait=False)
