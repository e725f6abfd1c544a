"""Properties of what validation accepts and how it fails.

1. Any config the model accepts goes through everything built from it without an exception:
   cost estimate, in-cluster manifests, capacity table, alerts, dashboard, quota preferences and
   the CLI's text views (the model-level preparation that synth renders).
2. Any byte string as a config file makes ``validate`` exit 0 or 2, never a traceback, within a
   time and memory bound.
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gke_accel.catalog import load_catalog
from gke_accel.cli import cost_view, manifests_view
from gke_accel.cli.main import main
from gke_accel.cli.summary import environment_summary
from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from gke_accel.model.observability.alerts import plan_alerts
from gke_accel.model.observability.cost import estimate_environment
from gke_accel.model.observability.dashboard import dashboard_json
from gke_accel.model.observability.quotas import derivation_text, plan_quotas
from gke_accel.model.platform.capacity import capacity_rows
from gke_accel.model.platform.manifests import platform_manifests
from helpers import base_config, set_path, to_yaml

CATALOG = load_catalog()
ZONES = [*sorted(CATALOG.zones.standard_zones | CATALOG.zones.ai_zones)[::3], "us-central1-a", "us-central1-b"]
# Integers from the everyday to the absurd: limits must hold at every size.
NUMBERS = st.one_of(
    st.integers(min_value=-3, max_value=300),
    st.sampled_from([0, 1, 1000, 1001, 4096, 65536, 65537, 2**31 - 1, 2**31, 2**63, 10**30]),
)
TEAM = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["nlp", "vision"]),
        "google_group": st.just("ml-team@acme.example.com"),
        "accelerators": st.dictionaries(st.sampled_from(["l4", "v5e", "h100", "t4", "v6e"]), NUMBERS, max_size=2),
        "cpu": NUMBERS,
        "memory_gib": NUMBERS,
    }
)
MUTATIONS: list[tuple[str, st.SearchStrategy[Any]]] = [
    ("tpu_pools[0].generation", st.sampled_from(["v5e", "v6e", "v5p", "v4", "tpu7x"])),
    ("tpu_pools[0].topology", st.sampled_from(["1x1", "2x2", "2x4", "4x4", "2x2x1", "2x2x2", "4x4x4"])),
    ("tpu_pools[0].zone", st.sampled_from([*ZONES, None])),
    ("tpu_pools[0].min_slices", NUMBERS),
    ("tpu_pools[0].max_slices", NUMBERS),
    ("tpu_pools[0].disk_size_gb", NUMBERS),
    ("tpu_pools[0].consumption", st.sampled_from(["spot", "on-demand", "flex-start", "queued", "reservation"])),
    ("gpu_pools[0].gpu", st.sampled_from(["l4", "t4", "a100", "h100", "h200", "b200", "v100", "p4", "p100"])),
    ("gpu_pools[0].gpus_per_node", NUMBERS),
    ("gpu_pools[0].machine_type", st.sampled_from(["n1-highcpu-4", "n1-standard-1", "custom-4-15360", None])),
    ("gpu_pools[0].zones", st.lists(st.sampled_from(ZONES), max_size=2, unique=True)),
    ("gpu_pools[0].min_nodes", NUMBERS),
    ("gpu_pools[0].max_nodes", NUMBERS),
    ("gpu_pools[0].node_count", NUMBERS),
    ("gpu_pools[0].disk_size_gb", NUMBERS),
    ("gpu_pools[0].sharing", st.fixed_dictionaries({"strategy": st.just("time-sharing"), "max_clients": NUMBERS})),
    ("gpu_pools[0].consumption", st.sampled_from(["spot", "on-demand", "flex-start", "queued"])),
    ("cluster.node_zones", st.lists(st.sampled_from(ZONES), min_size=1, max_size=3, unique=True)),
    ("cluster.system_pool", st.fixed_dictionaries({"min_nodes": NUMBERS, "max_nodes": NUMBERS})),
    ("cluster.system_pool.disk_size_gb", NUMBERS),
    ("cluster.auto_provisioning", st.fixed_dictionaries({"enabled": st.just(True), "max_cpu": NUMBERS})),
    ("cluster.min_master_version", st.sampled_from(["1.28", "1.31", "1.34", "1.33.1", None])),
    ("teams", st.lists(TEAM, max_size=2, unique_by=lambda t: t["name"])),
    ("monitoring.thresholds", st.fixed_dictionaries({"gpu_idle_duration_seconds": NUMBERS})),
    ("monitoring.thresholds", st.fixed_dictionaries({"not_ready_duration_seconds": NUMBERS})),
    ("monitoring.thresholds", st.fixed_dictionaries({"gpu_idle_percent": NUMBERS})),
    ("platform.checkpoints", st.fixed_dictionaries({"noncurrent_version_days": NUMBERS})),
]
CHANGES = st.lists(st.sampled_from(MUTATIONS).flatmap(lambda m: st.tuples(st.just(m[0]), m[1])), min_size=1, max_size=5)


def build_everything(plan: EnvironmentPlan) -> None:
    """Everything cost, manifests and synth derive from a plan, as plain data."""
    json.dumps([m for m in platform_manifests(plan)])
    estimate_environment(plan)
    capacity_rows(plan.pools, plan.spec.teams, CATALOG)
    plan_alerts(plan)
    json.dumps(dashboard_json(plan))
    derivation_text(plan, plan_quotas(plan))
    environment_summary(plan)
    cost_view.synth_section(plan)
    manifests_view.synth_section(plan)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CHANGES)
def test_every_accepted_config_builds_cost_manifests_and_synth_data(changes: list[tuple[str, Any]]) -> None:
    data = base_config()
    data["gpu_pools"][0]["consumption"] = "spot"
    for path, value in changes:
        data = set_path(data, path, value)
    try:
        plan = load_environment_text(to_yaml(data))
    except ConfigError as err:
        assert err.issues and all(i.path and i.message for i in err.issues)
        text = err.render()
        assert len(text) < 400 * len(err.issues) + 100  # values are cut before rendering
        return
    build_everything(plan)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.one_of(
        st.binary(max_size=2000),
        st.text(max_size=500).map(lambda s: s.encode("utf-8", "surrogatepass")),
        st.sampled_from([b"\xef\xbb\xbfenvironment: x\n", b"a: &a [*a]\n", b"[" * 5000, b"\xff\xfe\x00"]),
    )
)
def test_any_bytes_as_a_config_file_exit_0_or_2(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path: Path = tmp_path_factory.mktemp("bytes") / "x.yaml"
    path.write_bytes(data)
    started = time.perf_counter()
    code = main(["validate", "--config", str(path)])
    assert code in (0, 2)
    assert time.perf_counter() - started < 2.0
    assert _peak_rss_mb() < 1500


def test_a_huge_file_is_refused_fast_with_bounded_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as out:
        out.write(b"environment: huge\n")
        out.seek(200 * 1024 * 1024)
        out.write(b"\n")
    before = _peak_rss_mb()
    started = time.perf_counter()
    assert main(["validate", "--config", str(path)]) == 2
    assert time.perf_counter() - started < 1.0
    assert _peak_rss_mb() - before < 50
    assert "byte limit" in capsys.readouterr().err


def test_a_config_at_every_upper_limit_is_accepted_and_builds() -> None:
    """The largest accepted values, together: each limit is inclusive and nothing downstream breaks."""
    data = base_config()
    for path, value in [
        ("gpu_pools[0].max_nodes", 2000),  # 1000 per zone, 2 inherited zones
        ("gpu_pools[0].zones", ["us-central1-a", "us-central1-b"]),
        ("gpu_pools[0].disk_size_gb", 65536),
        ("cluster.system_pool", {"min_nodes": 1000, "max_nodes": 1000, "disk_size_gb": 65536}),
        ("tpu_pools[0].topology", "4x4"),
        ("tpu_pools[0].max_slices", 64),
        ("tpu_pools[0].min_slices", 64),
        (
            "teams",
            [
                {
                    "name": "big",
                    "google_group": "big@acme.example.com",
                    "cpu": 2**31 - 1,
                    "memory_gib": 2**31 - 1,
                    "pods": 2**31 - 1,
                    "accelerators": {"l4": 2000},
                }
            ],
        ),
    ]:
        data = set_path(data, path, value)
    plan = load_environment_text(to_yaml(data))
    assert len(plan.pools) == 65
    assert sum(p.node_bounds()[1] for p in plan.pools) + plan.cluster.system_pool.node_bounds()[1] == 3256
    build_everything(plan)
