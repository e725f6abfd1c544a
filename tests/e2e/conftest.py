"""Fixtures of the real-Kubernetes tier. Every test here is marked ``e2e`` (``make e2e`` runs them,
``make test`` deselects them); without the binaries from tools/k8s/build.sh they skip with the reason,
and in CI (``CI=true`` or ``GKE_ACCEL_E2E_REQUIRED=1``) they fail instead (tests/require.py). In CI any
other skip of an e2e test (a ``pytest.skip``, ``skipif``, ``importorskip``) is turned into a failure too.

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
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from gke_accel.twin.cluster import CONTROL_PLANE, LocalCluster, find_binaries
from require import require_or_skip, required, why_required

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


def _in_tier(path: object) -> bool:
    return Path(str(path)).resolve().is_relative_to(HERE)


def _skip_reason(longrepr: object) -> str:
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def _as_failure(report: pytest.TestReport | pytest.CollectReport) -> None:
    report.outcome = "failed"
    report.longrepr = (
        f"skipped in CI ({why_required()}), which the e2e tier does not allow: {_skip_reason(report.longrepr)}"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """In CI an e2e test that ends skipped (however it skipped) fails instead."""
    report = yield
    if report.skipped and required() and _in_tier(item.fspath) and not hasattr(report, "wasxfail"):
        _as_failure(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """...and so does a module of the tier that skips at import (``pytest.importorskip``, a module-level skip)."""
    report = yield
    if report.skipped and required() and _in_tier(collector.path):
        _as_failure(report)
    return report


def _require(need: tuple[str, ...] = CONTROL_PLANE) -> None:
    bins, reason = find_binaries(need)
    if bins is None:
        require_or_skip(reason)


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
