"""Load the hand-written GKE node fixtures (tests/fixtures/gke-nodes) and plan their pools.

The fixtures are the expected values; the pools are planned by the code under test."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import GpuPoolSpec, TpuPoolSpec, plan_gpu_pool, plan_tpu_pool
from gke_accel.model.core.parse import parse_dataclass
from gke_accel.model.pools.node_pool import NodePoolPlan

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "gke-nodes"
REGION = "us-central1"
ZONES = ("us-central1-a", "us-central1-b", "us-central1-c")


@dataclass(frozen=True)
class GkeNodeFixture:
    name: str
    kind: str  # tpu | gpu
    pool: dict[str, Any]
    node: dict[str, Any]
    not_modelled: dict[str, str]

    def plan(self) -> NodePoolPlan:
        if self.kind == "tpu":
            tpu, issues = parse_dataclass(TpuPoolSpec, self.pool, f"{self.name}.pool")
            assert tpu is not None, issues
            plans = plan_tpu_pool(tpu, region=REGION, cluster_zones=ZONES)
        else:
            gpu, issues = parse_dataclass(GpuPoolSpec, self.pool, f"{self.name}.pool")
            assert gpu is not None, issues
            plans = plan_gpu_pool(gpu, region=REGION, cluster_zones=ZONES)
        return plans[0]


def load_fixtures() -> list[GkeNodeFixture]:
    out = []
    for path in sorted(FIXTURES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        kind = "tpu" if path.name.startswith("tpu-") else "gpu"
        out.append(GkeNodeFixture(path.stem, kind, data["pool"], data["node"], dict(data.get("not_modelled") or {})))
    return out
