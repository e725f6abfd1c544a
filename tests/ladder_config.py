"""A small environment with one v5e 2x4 shape offered five ways (a specific reservation, a shared
reservation of another project, on-demand, flex-start, Spot) and an L4 pool: the base of the ladder
rule tests. The expected values in the tests are written by hand from this config."""

from __future__ import annotations

from typing import Any

from helpers import base_config


def _slice(name: str, consumption: Any) -> dict[str, Any]:
    return {
        "name": name,
        "generation": "v5e",
        "topology": "2x4",
        "machine_type": "ct5lp-hightpu-8t",  # single-host 2x4 (flex-start needs one VM)
        "zone": "us-central1-a",
        "max_slices": 2,
        "consumption": consumption,
    }


def ladder_config(rungs: list[str] | None = None) -> dict[str, Any]:
    data = base_config()
    data["tpu_pools"] = [
        _slice("v5e-res", {"type": "reservation", "reservation": "r-ml-1"}),
        _slice("v5e-shared", {"type": "reservation", "reservation": "projects/acme-capacity/reservations/r-pool"}),
        _slice("v5e-od", "on-demand"),
        _slice("v5e-flex", "flex-start"),
        _slice("v5e-spot", "spot"),
    ]
    data["capacity"] = {"v5e-2x4": {"rungs": rungs or ["reservation/r-ml-1", "on-demand", "spot"]}}
    return data
