"""GKE's node reservation against numbers published outside this project."""

from __future__ import annotations

import pytest

from gke_accel.model.pools.allocatable import allocatable_for, reserved_cpu_millis, reserved_memory_mib


@pytest.mark.parametrize(
    ("gib", "reserved_mib"),
    [
        # A Kubernetes-on-GKE calculator's tests (code search: "should reserve 6% of the next 112 GiB of memory
        # (up to 128 GiB) - BinarySI", 128Gi -> 9543Mi; "2% of any memory above 128 GiB", 512Gi -> 17407Mi).
        (128, 9543),
        (512, 17407),
    ],
)
def test_memory_reservation_matches_published_calculators(gib: int, reserved_mib: float) -> None:
    assert reserved_memory_mib(gib) == pytest.approx(reserved_mib, abs=1.5)


def test_allocatable_memory_matches_the_gke_memory_calculator() -> None:
    # gke-node-allocatable-memory-calculator README (hatemosphere): "Machine has 150.0 GiB ... Reserving an
    # additional 100 MiB for Pod eviction ... Allocatable memory: 140.1423 GiB".
    assert allocatable_for(1, 150).memory_mib / 1024 == pytest.approx(140.1423, abs=0.001)


def test_small_machines_reserve_255_mib() -> None:
    assert reserved_memory_mib(0.5) == 255  # "255 MiB of memory for machines with less than 1 GiB"


@pytest.mark.parametrize(
    ("vcpu", "reserved"),
    # GKE "Plan node sizes" tiers worked by hand: 1 core 60m; 2 cores 70m; 4 cores 80m; 8 cores 90m.
    [(1, 60), (2, 70), (4, 80), (8, 90)],
)
def test_cpu_reservation_follows_gke_tiers(vcpu: int, reserved: int) -> None:
    assert reserved_cpu_millis(vcpu) == pytest.approx(reserved)


def test_e2_standard_4_allocatable_matches_a_measured_system_node() -> None:
    # real-engines.md §2: the system pool's e2-standard-4 nodes, 3920m cpu (GKE formula, 4 vCPU).
    assert allocatable_for(4, 16).cpu_millis == 3920
