"""N2: specs built in Python get the same parse as YAML in the model's planning functions, the
documented pre-check: ``consumption="spot"`` is a Spot pool (GKE's Spot label and taint on its nodes),
a list where a mapping belongs is a ConfigError naming the field, never an AttributeError."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gke_accel.model import (
    ConfigError,
    EnvironmentSpec,
    GpuPoolSpec,
    TeamSpec,
    TpuPoolSpec,
    load_environment_text,
    plan_environment,
    plan_gpu_pool,
    plan_tpu_pool,
)

ZONES = ("us-central1-a",)


def test_consumption_spot_as_a_string_plans_a_spot_pool() -> None:
    gpu = GpuPoolSpec(name="l4", gpu="l4", gpus_per_node=1, max_nodes=4, consumption="spot")  # type: ignore[arg-type]
    [pool] = plan_gpu_pool(gpu, region="us-central1", cluster_zones=ZONES)
    assert pool.spot
    tpu = TpuPoolSpec(name="v5e", generation="v5e", topology="2x2", zone="us-central1-a", consumption="spot")  # type: ignore[arg-type]
    assert all(p.spot for p in plan_tpu_pool(tpu, region="us-central1", cluster_zones=ZONES))
    on_demand = GpuPoolSpec(name="l4", gpu="l4", gpus_per_node=1, max_nodes=4)
    assert not plan_gpu_pool(on_demand, region="us-central1", cluster_zones=ZONES)[0].spot


def test_a_wrong_consumption_is_a_config_error_at_the_field() -> None:
    gpu = GpuPoolSpec(name="l4", gpu="l4", gpus_per_node=1, consumption="spott")  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as info:
        plan_gpu_pool(gpu, region="us-central1", cluster_zones=ZONES)
    assert [i.path for i in info.value.issues] == ["gpu_pool.consumption"]


def test_a_teams_accelerators_as_a_list_is_a_config_error_at_the_field() -> None:
    data = yaml.safe_load((Path(__file__).resolve().parents[2] / "config" / "dev.yaml").read_text())
    spec = load_environment_text(yaml.safe_dump(data), expected_name="dev").spec
    team = TeamSpec(name="x", google_group="x@example.com", accelerators=["l4"])  # type: ignore[arg-type]
    broken = EnvironmentSpec(**{**spec.__dict__, "teams": (team,)})
    with pytest.raises(ConfigError) as info:
        plan_environment(broken)
    assert [i.path for i in info.value.issues] == ["teams[0].accelerators"]
    assert "should be a mapping" in info.value.render()
    assert plan_environment(spec).name == "dev"  # the same spec, well-formed, plans


def test_not_a_spec_at_all_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        plan_gpu_pool({"name": "l4"}, region="us-central1", cluster_zones=ZONES)  # type: ignore[arg-type]
    assert "should be a GpuPoolSpec" in info.value.render()
