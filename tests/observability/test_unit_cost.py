"""`cost` per MIG instance / shared GPU slot (issue #21): a MIG or time-sharing pool shows the price of
one advertised ``nvidia.com/gpu`` too. Expected values by hand from catalog/prices.yaml (as of
2026-07-30): a2-ultragpu-1g $5.0688 on-demand / $2.7595 Spot per hour, n1-standard-8 $0.38 + one
nvidia-tesla-t4 $0.35 on-demand per hour, pd-balanced $0.10 per GB-month, 730 h/month, boot disk
200 GB; and the units a node advertises from the hand-written fixtures (tests/fixtures/gke-nodes):
gpu-mig-a100-1g10gb.yaml 7, gpu-t4-time-sharing.yaml 4."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_accel.cli.main import main
from gke_accel.model import load_environment_text
from gke_accel.model.observability.cost import estimate_environment
from helpers import base_config, to_yaml

SHARED_T4 = {"name": "t4-shared", "gpu": "t4", "gpus_per_node": 1, "max_nodes": 2, "zones": ["us-central1-a"],
             "sharing": {"strategy": "time-sharing", "max_clients": 4}}  # fmt: skip
MIG_A100 = {"name": "a100-mig", "gpu": "a100-80gb", "gpus_per_node": 1, "max_nodes": 2, "zones": ["us-central1-a"],
            "partition_size": "1g.10gb", "consumption": "spot"}  # fmt: skip
WHOLE_A100 = {"name": "a100", "gpu": "a100-80gb", "gpus_per_node": 1, "max_nodes": 2, "zones": ["us-central1-a"]}
DISK = 200 * 0.10  # USD per node-month


def _data() -> dict[str, Any]:
    data = base_config()
    data["gpu_pools"] = [SHARED_T4, MIG_A100, WHOLE_A100]
    return data


def _pools() -> dict[str, Any]:
    cost = estimate_environment(load_environment_text(to_yaml(_data())))
    return {p.name: p for p in cost.pools}


def test_a_mig_pool_prices_one_instance() -> None:
    unit = _pools()["a100-mig"].unit
    assert unit is not None
    assert (unit.unit, unit.per_node) == ("MIG 1g.10gb instance", 7)
    assert unit.hourly == pytest.approx(2.7595 / 7, abs=1e-6)  # Spot: 0.394214
    assert unit.monthly == pytest.approx((2.7595 * 730 + DISK) / 7, abs=0.01)  # 290.63


def test_a_time_shared_pool_prices_one_slot() -> None:
    unit = _pools()["t4-shared"].unit
    assert unit is not None
    assert (unit.unit, unit.per_node) == ("time-sharing slot (4 clients) of a GPU", 4)
    assert unit.hourly == pytest.approx((0.38 + 0.35) / 4, abs=1e-6)  # 0.1825
    assert unit.monthly == pytest.approx(((0.38 + 0.35) * 730 + DISK) / 4, abs=0.01)  # 138.22


def test_whole_gpu_tpu_and_system_pools_have_no_unit_price() -> None:
    pools = _pools()
    assert pools["a100"].unit is None and pools["system"].unit is None
    assert all(p.unit is None for p in pools.values() if p.kind == "tpu")


def test_the_cost_command_shows_the_unit_prices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test.yaml").write_text(to_yaml(_data()))
    assert main(["cost", "--config-dir", str(tmp_path), "--env", "test"]) == 0
    out = capsys.readouterr().out
    assert "  a100-mig: MIG 1g.10gb instance, 7 per node: $0.3942/hour, $290.63/month" in out
    assert "  t4-shared: time-sharing slot (4 clients) of a GPU, 4 per node: $0.1825/hour, $138.22/month" in out
    assert "  a100:" not in out.split("per unit a pod requests")[1]
    assert main(["cost", "--config-dir", str(tmp_path), "--env", "test", "--json"]) == 0
    pools = {p["name"]: p for p in json.loads(capsys.readouterr().out)["test"]["pools"]}
    assert pools["a100-mig"]["unit"]["per_node"] == 7 and pools["a100"]["unit"] is None


def test_shipped_environments_without_partitions_print_no_unit_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--env", "dev"]) == 0
    assert "per unit a pod requests" not in capsys.readouterr().out
