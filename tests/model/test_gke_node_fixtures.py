"""node_shape against GKE's nodes as GKE's documentation describes them.

Expected values come only from the hand-written fixtures in tests/fixtures/gke-nodes (each fact cited
there); the pools are planned from the fixture's ``pool`` entry by the code under test."""

from __future__ import annotations

import pytest

from gke_accel.catalog import load_catalog
from gke_accel.model.pools.node_pool import LABEL_PREFIX
from gke_accel.model.pools.node_shape import CAPACITY_LABEL, node_shape
from gke_nodes import FIXTURES as FIXTURES_DIR
from gke_nodes import GkeNodeFixture, load_fixtures

FIXTURES = load_fixtures()
IDS = [f.name for f in FIXTURES]
EXTENDED = ("google.com/tpu", "nvidia.com/gpu")


def test_there_is_a_fixture_for_every_pool_kind() -> None:
    assert len(FIXTURES) == 15
    pools = [f.pool for f in FIXTURES]
    assert {
        p.get("consumption") if isinstance(p.get("consumption"), str) else (p.get("consumption") or {}).get("type")
        for p in pools
    } >= {None, "spot", "queued", "flex-start", "reservation"}
    assert {p.get("partition_size") for p in pools} >= {"1g.10gb", "3g.40gb"}
    assert {(p.get("sharing") or {}).get("strategy") for p in pools} >= {"time-sharing", "mps"}


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_node_labels_match_gke(fixture: GkeNodeFixture) -> None:
    shape = node_shape(fixture.plan())
    labels = fixture.node["metadata"]["labels"]
    ours = {
        k: v
        for k, v in shape.node_labels(labels["topology.kubernetes.io/zone"]).items()
        if not k.startswith(f"{LABEL_PREFIX}/") or k in (CAPACITY_LABEL, "gke-accel/gpu-unit")
    }
    assert ours == labels
    assert not set(fixture.not_modelled) & set(ours), "a label both modelled and listed as not modelled"


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_selectors_require_only_documented_labels(fixture: GkeNodeFixture) -> None:
    """A selector never requires a label the fixture marks UNVERIFIED (``node_shape``'s inferred labels),
    and every label it requires is on the fixture's node."""
    shape = node_shape(fixture.plan())
    path = FIXTURES_DIR / f"{fixture.name}.yaml"
    unverified = {
        line.split(":", 1)[0].strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if "UNVERIFIED" in line.split("#", 1)[-1] and ":" in line and not line.lstrip().startswith("#")
    }
    assert not set(shape.selector()) & unverified
    assert set(shape.inferred) <= unverified | set(fixture.not_modelled)
    assert shape.selector().items() <= fixture.node["metadata"]["labels"].items()


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_node_taints_match_gke(fixture: GkeNodeFixture) -> None:
    shape = node_shape(fixture.plan())
    assert sorted(t.as_k8s().items() for t in shape.taints) == sorted(
        {k: str(v) for k, v in t.items()}.items() for t in fixture.node["spec"]["taints"]
    )


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_node_extended_resources_match_gke(fixture: GkeNodeFixture) -> None:
    shape = node_shape(fixture.plan())
    allocatable = fixture.node["status"]["allocatable"]
    assert shape.extended_resources() == {k: allocatable[k] for k in EXTENDED if k in allocatable}


def _millis(cpu: str) -> int:
    return int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000


def _mib(memory: str) -> float:
    units = {"Ki": 1 / 1024, "Mi": 1.0, "Gi": 1024.0}
    return float(memory[:-2]) * units[memory[-2:]]


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_node_cpu_memory_pods_allocatable_match_gke(fixture: GkeNodeFixture) -> None:
    """Rounding allowed: cpu to the millicore; memory to 1 MiB (the fixtures round GKE's formula down
    to whole MiB). Capacity is the machine size (fixture README, KCAP)."""
    shape = node_shape(fixture.plan())
    want = fixture.node["status"]["allocatable"]
    assert shape.machine is not None, f"{shape.machine_type}: machine size unknown"
    assert shape.machine.cpu_millis == _millis(want["cpu"])
    assert abs(shape.machine.memory_mib - _mib(want["memory"])) <= 1
    assert shape.machine.pods == int(want["pods"])
    capacity = fixture.node["status"]["capacity"]
    size = load_catalog().machine_size(shape.machine_type)
    assert size is not None
    assert (size.vcpu * 1000, size.memory_gb * 1024) == (_millis(capacity["cpu"]), _mib(capacity["memory"]))
