"""Cost model (numbers checked by hand) and quota-preference derivation; no provider bindings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_accel.catalog import load_catalog
from gke_accel.cli.cost_view import synth_section
from gke_accel.cli.main import main
from gke_accel.model import EnvironmentPlan, load_environment, load_environment_text
from gke_accel.model.observability.cost import PoolCost, estimate_environment
from gke_accel.model.observability.quotas import derivation_text, load_quota_catalog, plan_quotas
from helpers import base_config, set_path, to_yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config"


def shipped(env: str) -> EnvironmentPlan:
    return load_environment(CONFIG / f"{env}.yaml")


def pool(plan: EnvironmentPlan, name: str) -> PoolCost:
    [found] = [p for p in estimate_environment(plan).pools if p.name == name]
    return found


# --- cost, by hand (prices.yaml of 2026-07-30, 730 h/month) ---


def test_tpu_pool_is_chips_times_chip_price_spot_as_configured() -> None:
    # dev v5e-dev: v5e 2x2 on ct5lp-hightpu-4t (4 chips/VM), 0-2 VMs, Spot.
    # max Spot: 2 VMs x 4 chips x 0.21298 $/chip-h x 730 h = 1243.8032, + 2 boot disks x 100 GB x
    # 0.10 $/GB-month (pd-balanced) = 20 -> 1263.80; max on-demand: 2 x 4 x 1.20 x 730 + 20 = 7028.00
    c = pool(shipped("dev"), "v5e-dev")
    assert (c.kind, c.consumption, c.nodes_min, c.nodes_max) == ("tpu", "spot", 0, 2)
    assert c.monthly_min == 0.0
    assert c.disk_monthly_per_node == 10.00
    assert c.monthly_max == 1263.80
    assert c.monthly_max_spot == 1263.80
    assert c.monthly_max_on_demand == 7028.00
    assert c.priced and not c.verify


def test_accelerator_optimized_gpu_pool_is_the_whole_vm_price() -> None:
    # dev l4-dev: g2-standard-12 (1 L4), 0-4 nodes, Spot: 4 x 0.5624 x 730 = 1642.208, + 4 boot disks
    # x 200 GB x 0.10 = 80 -> 1722.21; on-demand 4 x 1.0004 x 730 + 80 = 3001.168
    c = pool(shipped("dev"), "l4-dev")
    assert c.machine_type == "g2-standard-12"
    assert c.monthly_max == 1722.21
    assert c.monthly_max_on_demand == 3001.17
    assert c.monthly_max_spot == 1722.21


def test_n1_gpu_pool_is_host_plus_gpus() -> None:
    # prod t4-serve: n1-standard-8 (0.38) + 1 x T4 (0.35) = 0.73 $/h; 2-8 nodes, on-demand.
    # + a 200 GB pd-balanced boot disk per node (20 $/month): min 2 x (0.73 x 730 + 20) = 1105.80;
    # max 8 x (0.73 x 730 + 20) = 4423.20; Spot 8 x ((0.134 + 0.14) x 730 + 20) = 1760.16
    c = pool(shipped("prod"), "t4-serve")
    assert c.hourly_per_node == 0.73
    assert (c.monthly_min, c.monthly_max) == (1105.80, 4423.20)
    assert c.monthly_max_spot == 1760.16


def test_h100_price_is_flagged_verify() -> None:
    # a3-highgpu-8g 2 x (88.49 $/h x 730 + 200 GB x 0.10) = 129235.40
    c = pool(shipped("prod"), "h100-train")
    assert c.monthly_max == 129235.40 and c.verify


def test_totals_fee_source_date_and_the_system_pool_with_its_disks() -> None:
    cost = estimate_environment(shipped("dev"))
    assert cost.cluster_fee_monthly == 73.00  # 0.10 $/h x 730
    assert cost.source_date == load_catalog().prices.source_date == "2026-07-30"
    assert cost.hours_per_month == 730
    # system pool: e2-standard-4 0.134012 $/h x 730 + 100 GB x 0.10 = 107.83 per node, 1-3 nodes
    system = pool(shipped("dev"), "system")
    assert system.priced and (system.monthly_min, system.monthly_max) == (107.83, 323.49)
    assert cost.total_monthly_min == round(73.00 + 107.83, 2)
    # CPU pool: e2-standard-8 0.268024 $/h x 730 + 100 GB x 0.10 = 205.65752 per node, 0-4 nodes: 822.63
    cpu = pool(shipped("dev"), "cpu")
    assert cpu.priced and (cpu.monthly_min, cpu.monthly_max) == (0, 822.63)
    assert cost.total_monthly_max == round(73.00 + 323.49 + 1263.80 + 1722.21 + 822.63, 2)
    assert cost.unpriced == ()


def test_to_dict_is_json_with_the_required_keys() -> None:
    data = json.loads(json.dumps(estimate_environment(shipped("prod")).to_dict()))
    for key in (
        "source_date",
        "hours_per_month",
        "cluster_fee_monthly",
        "pools",
        "total_monthly_min",
        "total_monthly_max",
        "unpriced",
    ):
        assert key in data
    for key in (
        "name",
        "kind",
        "machine_type",
        "nodes_min",
        "nodes_max",
        "consumption",
        "monthly_min",
        "monthly_max",
        "monthly_max_on_demand",
        "monthly_max_spot",
        "verify",
        "priced",
    ):
        assert key in data["pools"][0]


def test_unknown_price_is_unpriced_not_invented() -> None:
    data = set_path(
        base_config(),
        "tpu_pools[0]",
        {"name": "ironwood", "generation": "tpu7x", "topology": "1x1x1", "zone": "us-central1-c"},
    )
    data = set_path(data, "cluster.node_zones", ["us-central1-c"])
    plan = load_environment_text(to_yaml(data))
    c = pool(plan, "ironwood")
    assert not c.priced and c.monthly_max_on_demand is None
    assert any(u.startswith("ironwood") for u in estimate_environment(plan).unpriced)


def test_flex_start_shows_on_demand_as_upper_bound_and_verify() -> None:
    data = set_path(base_config(), "gpu_pools[0].consumption", "flex-start")
    data["queues"] = {}  # flex-start pools are used through Kueue
    c = pool(load_environment_text(to_yaml(data)), "l4")
    assert c.consumption == "flex-start" and c.verify and "upper bound" in c.note
    assert c.monthly_max == c.monthly_max_on_demand


# --- quota preferences ---


def test_prod_derivation_requests_documented_h100_and_reports_the_rest() -> None:
    text = derivation_text(shipped("prod"))
    assert "quota preferences: on" in text
    assert (
        "nvidia-h100-80gb on-demand GPUs in us-central1: h100-train 2 nodes x 8 = 16 -> requested: "
        "compute.googleapis.com "
        "GPUS-PER-GPU-FAMILY-per-project-region [region=us-central1, gpu_family=NVIDIA_H100] preferred_value=16"
    ) in text
    assert "nvidia-tesla-t4 on-demand GPUs in us-central1: t4-serve 8 nodes x 1 = 8 -> not emitted" in text
    assert "v5p on-demand TPU chips in us-central1: v5p-train 2 nodes x 4 = 8 -> not emitted" in text


def test_pools_add_up_per_family_and_bucket() -> None:
    h100 = {"gpu": "h100", "gpus_per_node": 8, "zones": ["us-central1-a"], "min_nodes": 0}
    data = set_path(
        base_config(),
        "gpu_pools",
        [
            {**h100, "name": "train-a", "max_nodes": 2},
            {**h100, "name": "train-b", "max_nodes": 1},
            {**h100, "name": "spot-c", "max_nodes": 3, "consumption": "spot"},
        ],
    )
    quotas = plan_quotas(load_environment_text(to_yaml(data)))
    by_bucket = {(n.accelerator, n.bucket): n for n in quotas.needs}
    on_demand = by_bucket[("nvidia-h100-80gb", "on_demand")]
    assert on_demand.total == 24 and [p[0] for p in on_demand.pools] == ["train-a", "train-b"]
    assert on_demand.emitted and on_demand.dimensions == {"region": "us-central1", "gpu_family": "NVIDIA_H100"}
    assert on_demand.preference_name == (
        "compute_googleapis_com-GPUS-PER-GPU-FAMILY-per-project-region_us-central1_NVIDIA_H100"
    )
    spot = by_bucket[("nvidia-h100-80gb", "preemptible")]
    assert spot.total == 24 and not spot.emitted  # 3 x 8; preemptible ID is third-party only
    assert [n.accelerator for n in quotas.emitted] == ["nvidia-h100-80gb"]


def test_quota_catalog_names_known_accelerators_and_sources() -> None:
    catalog, quotas = load_catalog(), load_quota_catalog()
    assert set(quotas.gpu) <= set(catalog.gpu_models)
    assert set(quotas.tpu) <= set(catalog.tpu_generations)
    for table in (quotas.gpu, quotas.tpu):
        for buckets in table.values():
            assert set(buckets) <= {"on_demand", "preemptible"}
            for q in buckets.values():
                assert q.source in quotas.sources
    documented = [q.quota_id for t in (quotas.gpu, quotas.tpu) for b in t.values() for q in b.values() if q.documented]
    assert documented == ["GPUS-PER-GPU-FAMILY-per-project-region"]


# --- CLI ---


def test_cost_command_prints_table_totals_and_source_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--config-dir", str(CONFIG), "--env", "prod"]) == 0
    out = capsys.readouterr().out
    assert "t4-serve" in out and "$4,423" in out and "(cluster fee)" in out
    assert "as of 2026-07-30" in out and "unpriced (left out of the totals): system" not in out


def test_cost_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--config-dir", str(CONFIG), "--env", "dev", "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert data["dev"]["total_monthly_max"] == 4205.13  # 3382.50 + the CPU pool's 822.63 (above)


def test_cost_command_bad_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "test.yaml"
    path.write_text(to_yaml(set_path(base_config(), "monitoring.thresholds.gpu_idle_percent", 150)))
    assert main(["cost", "--config", str(path)]) == 2
    assert "monitoring.thresholds.gpu_idle_percent: 150.0 is out of range" in capsys.readouterr().err


def test_synth_section_shows_alerts_quota_derivation_and_cost_line() -> None:
    text = synth_section(shipped("prod"))
    assert "alerts: gpu_idle (WARNING)" in text and "nodes_not_ready (CRITICAL)" in text
    assert "h100-train 2 nodes x 8 = 16 -> requested" in text
    # + prod's CPU pool at 6 nodes x 205.65752 = 1,233.95: 158,603 -> 159,837
    assert "cost: $25,835-$159,837/month" in text and "prices of 2026-07-30" in text
