"""Rules added for issue 12, each with an accepted and a rejected config (helpers as in test_rules_*.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_accel.cli.main import main
from gke_accel.model import ConfigError, load_environment_text
from helpers import Rule, assert_rule_accepts, assert_rule_rejects, base_config, set_path, to_yaml

TPU = "tpu_pools[0]"
GPU = "gpu_pools[0]"
T4 = {f"{GPU}.gpu": "t4", f"{GPU}.gpus_per_node": 1}
RULES = [
    # --- zones, worldwide (zones.md 8.5) ---
    Rule(
        "tpu-zone-listed-outside-us",
        f"{TPU}.zone",
        "europe-west4-a",
        "europe-west4-c",
        f"{TPU}.zone",
        "does not offer v6e",
        {
            "region": "europe-west4",
            "cluster.location": "europe-west4",
            "cluster.node_zones": ["europe-west4-a", "europe-west4-b"],
            f"{TPU}.generation": "v6e",
            "gpu_pools": [],
        },
    ),
    Rule(
        "tpu-ai-zone",
        f"{TPU}.zone",
        "us-central1-ai1a",
        "us-central1-ai1",
        f"{TPU}.zone[0]",
        "not a zone of region",
        {f"{TPU}.generation": "tpu7x", f"{TPU}.topology": "2x2x1", "cluster.min_master_version": "1.34"},
    ),
    Rule(
        "gpu-zone-explicit",
        f"{GPU}.zones",
        ["us-central1-a"],
        ["us-central1-f"],
        f"{GPU}.zones[0]",
        "does not offer nvidia-l4",
    ),
    Rule(
        "gpu-zone-inherited",
        "cluster.node_zones",
        ["us-central1-a", "us-central1-c"],
        ["us-central1-a", "us-central1-f"],
        f"{GPU}.zones",
        "(inherited from cluster.node_zones) does not offer nvidia-l4",
        {f"{TPU}.zone": "us-central1-a"},
    ),
    Rule(
        "gpu-zone-override",
        f"{GPU}.allow_unlisted_zone",
        True,
        False,
        f"{GPU}.zones[0]",
        "set allow_unlisted_zone: true",
        {f"{GPU}.zones": ["us-central1-f"]},
    ),
    Rule(
        "gpu-zone-a100-80gb",
        f"{GPU}.zones",
        ["us-central1-c"],
        ["us-central1-b"],
        f"{GPU}.zones[0]",
        "does not offer nvidia-a100-80gb",
        {f"{GPU}.gpu": "a100-80gb", f"{GPU}.gpus_per_node": 1},
    ),
    Rule(
        "cluster-zone-exists",
        "cluster.node_zones",
        ["us-central1-a", "us-central1-f"],
        ["us-central1-a", "us-central1-d"],
        "cluster.node_zones[1]",
        "is not a zone of us-central1",
        {f"{GPU}.zones": ["us-central1-a"]},
    ),
    Rule(
        "cluster-zonal-location-exists",
        "cluster.location",
        "us-central1-a",
        "us-central1-e",
        "cluster.location",
        "is not a zone of us-central1",
        {"cluster.node_zones": [], f"{GPU}.zones": ["us-central1-a"]},
    ),
    # --- GKE and Compute Engine limits ---
    Rule("disk-max", f"{GPU}.disk_size_gb", 65536, 65537, f"{GPU}.disk_size_gb", "too large"),
    Rule("system-disk", "cluster.system_pool.disk_size_gb", 10, 5, "cluster.system_pool.disk_size_gb", "too small"),
    Rule("nodes-per-zone", f"{GPU}.max_nodes", 2000, 2001, f"{GPU}.max_nodes", "at most 1000 nodes per zone"),
    Rule(
        "static-nodes-per-zone",
        f"{GPU}.node_count",
        1000,
        1001,
        f"{GPU}.node_count",
        "more than GKE allows",
        {f"{GPU}.max_nodes": None},
    ),
    Rule(
        "system-nodes-per-zone",
        "cluster.system_pool.max_nodes",
        1000,
        1001,
        "cluster.system_pool.max_nodes",
        "out of range",
    ),
    Rule(
        "nodes-per-cluster",
        "gpu_pools",
        [{"name": f"l4-{i}", "gpu": "l4", "max_nodes": 1000} for i in range(14)],
        [{"name": f"l4-{i}", "gpu": "l4", "max_nodes": 1000} for i in range(16)],
        "(cluster)",
        "more than a GKE cluster allows",
    ),
    Rule(
        "pools-per-cluster",
        "tpu_pools",
        [
            {"name": f"v{i}", "generation": "v5e", "topology": "4x4", "zone": "us-central1-a", "max_slices": 64}
            for i in range(15)
        ],
        [
            {"name": f"v{i}", "generation": "v5e", "topology": "4x4", "zone": "us-central1-a", "max_slices": 64}
            for i in range(16)
        ],
        "tpu_pools",
        "node pools is more than gke-accel supports",
        {"gpu_pools": []},
    ),
    Rule("int32", "teams", [], [{"name": "t", "google_group": "t@x.io", "cpu": 2**31}], "teams[0].cpu", "out of range"),
    Rule(
        "nap-cpu",
        "cluster.auto_provisioning",
        {"enabled": True},
        {"enabled": True, "max_cpu": 0},
        "cluster.auto_provisioning.max_cpu",
        "out of range",
    ),
    # --- maintenance (GKE: 48 h in 32 days, windows of 4 h or more; RFC 3339 with offset) ---
    Rule(
        "maintenance-availability",
        "cluster.maintenance.recurrence",
        "FREQ=WEEKLY;BYDAY=SA,SU",
        "FREQ=WEEKLY;BYDAY=SU",
        "cluster.maintenance.recurrence",
        "GKE requires at least 48",
    ),
    Rule(
        "maintenance-min-window",
        "cluster.maintenance.end_time",
        "2025-01-04T07:00:00Z",
        "2025-01-04T06:00:00Z",
        "cluster.maintenance.end_time",
        "at least 4 hours",
        {"cluster.maintenance.recurrence": "FREQ=DAILY"},
    ),
    Rule(
        "maintenance-offset",
        "cluster.maintenance.start_time",
        "2025-01-04T04:00:00+01:00",
        "2025-01-04T03:00:00",
        "cluster.maintenance.start_time",
        "has no time zone offset",
    ),
    Rule(
        "maintenance-unquoted-time",
        "cluster.maintenance",
        {"start_time": "2025-01-04T03:00:00Z", "end_time": "2025-01-04T11:00:00Z"},
        {"start_time": "2025-01-04T03:00:00Z", "end_time": "2025-01-04 11:00:00"},
        "cluster.maintenance.end_time",
        "has no time zone offset",
    ),
    # --- versions: minor pins ---
    Rule(
        "version-minor-pin",
        "cluster.min_master_version",
        "1.28",
        "1.27",
        "cluster.min_master_version",
        "first version with v5p TPUs",
        {f"{TPU}.generation": "v5p", f"{TPU}.topology": "2x2x1"},
    ),
    Rule(
        "version-patch-pin",
        "cluster.min_master_version",
        "1.31.2",
        "1.31.1",
        "cluster.min_master_version",
        "first version with v6e TPUs",
        {f"{TPU}.generation": "v6e", f"{TPU}.zone": "us-central1-b"},
    ),
    # --- GPU hosts: any N1 shape but shared-core, custom included ---
    Rule("n1-highcpu", f"{GPU}.machine_type", "n1-highcpu-4", "f1-micro", f"{GPU}.machine_type", "shared-core", T4),
    Rule("n1-small", f"{GPU}.machine_type", "n1-standard-1", "n1-standard-3", f"{GPU}.machine_type", "not a GPU", T4),
    Rule("n1-custom", f"{GPU}.machine_type", "custom-6-23040", "custom-5-23040", f"{GPU}.machine_type", "GPU", T4),
    Rule(
        "n1-custom-limit",
        f"{GPU}.machine_type",
        "custom-12-79872",
        "custom-14-79872",
        f"{GPU}.machine_type",
        "too large",
        {f"{GPU}.gpu": "v100", f"{GPU}.gpus_per_node": 1},
    ),
    # --- placement and consumption ---
    Rule(
        "flex-start-compact-family",
        f"{GPU}.gpu",
        "h200",
        "h100",
        f"{GPU}.placement",
        "cannot be combined with flex-start",
        {
            f"{GPU}.gpus_per_node": 8,
            f"{GPU}.placement": "compact",
            f"{GPU}.consumption": "flex-start",
            f"{GPU}.zones": ["us-central1-b"],
            "queues": {},  # flex-start pools are used through Kueue
        },
    ),
    Rule(
        "reservation-name",
        f"{GPU}.consumption",
        {"type": "reservation", "reservation": "projects/acme-ml-test/reservations/l4-res"},
        {"type": "reservation", "reservation": "L4 reservation"},
        f"{GPU}.consumption.reservation",
        "not a reservation name",
    ),
    # --- names and free text ---
    Rule("name-trailing-newline", "cluster.name", "ml-test", "ml-test\n", "cluster.name", "control character"),
    Rule("pool-name-full-match", f"{GPU}.name", "l4", "l4\n", f"{GPU}.name", "control character"),
    Rule(
        "text-length",
        "cluster.master_authorized_networks[0].name",
        "corp",
        "x" * 1025,
        "cluster.master_authorized_networks[0].name",
        "longer than 1024",
    ),
    Rule(
        "network-name",
        "cluster.network",
        {"create": False, "network": "shared-vpc", "subnetwork": "ml"},
        {"create": False, "network": "Shared VPC", "subnetwork": "ml"},
        "cluster.network.network",
        "not a valid Compute Engine name",
    ),
    Rule(
        "rbac-group",
        "cluster.rbac_security_group",
        "gke-security-groups@acme.example.com",
        "ml-admins@acme.example.com",
        "cluster.rbac_security_group",
        "gke-security-groups",
    ),
    Rule(
        "bucket-name",
        "backend",
        {"type": "gcs", "bucket": "acme-tf-state"},
        {"type": "gcs", "bucket": "A"},
        "backend.bucket",
        "not a GCS bucket name",
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)


def _errors(data: dict[str, object]) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))  # type: ignore[arg-type]
    return [i.render() for i in info.value.issues]


def test_one_bad_pool_adds_no_follow_on_errors() -> None:
    data = set_path(base_config(), f"{GPU}.gpus_per_node", 3)
    data = set_path(data, "teams", [{"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"l4": 2}}])
    assert _errors(data) == [
        "gpu_pools[0].gpus_per_node: 3 is not valid for nvidia-l4; valid: 1, 2, 4, 8",
    ]
    good = set_path(data, f"{GPU}.gpus_per_node", 1)
    assert load_environment_text(to_yaml(good)).spec.teams[0].accelerators == {"l4": 2}
    gone = set_path(good, "gpu_pools", [])  # with the pool really absent, the quota is an error
    assert any("which no pool of this environment provides" in e for e in _errors(gone))


def test_independent_mistakes_are_all_listed_and_values_show_as_yaml() -> None:
    data = set_path(base_config(), f"{GPU}.gpus_per_node", 3)
    data = set_path(data, "teams", [{"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"l4": 2}}])
    data = set_path(data, f"{TPU}.topology", "3x3")
    data = set_path(data, "cluster.master_authorized_networks", [{"cidr": "10.0.0.0/33", "name": "corp"}])
    found = _errors(data)
    assert len(found) == 3, found  # no "team quota for nvidia-l4 that no pool provides" follow-on
    assert any("gpus_per_node: 3 is not valid" in f for f in found)
    assert any("'3x3' is not valid for v5e" in f for f in found)
    assert any("'10.0.0.0/33' is not a valid IPv4 CIDR" in f for f in found)


def test_the_version_rule_still_runs_when_the_tpu_pool_has_another_mistake() -> None:
    data = set_path(base_config(), f"{TPU}.generation", "v6e")
    data = set_path(data, f"{TPU}.zone", "us-central1-f")  # no v6e there
    data = set_path(data, "cluster.min_master_version", "1.30")
    found = _errors(data)
    assert len(found) == 2
    assert any("first version with v6e TPUs" in f for f in found)


def test_a_huge_value_is_cut_before_it_is_shown() -> None:
    found = _errors(set_path(base_config(), f"{TPU}.topology", "9x" * 400 + "9"))
    assert len(found[0]) < 400 and "(801 characters)" in found[0]
    listed = _errors(set_path(base_config(), f"{GPU}.zones", [f"z{i}" for i in range(5000)]))
    assert all(len(f) < 400 for f in listed)
    assert "None" not in _errors(set_path(base_config(), "cluster.name", None))[0]


def test_validate_prints_warnings_and_the_zone_data_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = set_path(base_config(), f"{GPU}.zones", ["us-central1-f"])
    data = set_path(data, f"{GPU}.allow_unlisted_zone", True)
    path = tmp_path / "test.yaml"
    path.write_text(to_yaml(data))
    assert main(["validate", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: gpu_pools[0].zones[0]: us-central1-f does not offer nvidia-l4" in out
    assert "zone data as of 2026-10-01" in out


def test_duplicate_keys_fail_validate_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "test.yaml"
    path.write_text(to_yaml(base_config()) + "region: us-east1\n")
    assert main(["validate", "--config", str(path)]) == 2
    assert "repeats the key 'region' (first at line 3)" in capsys.readouterr().err


def test_unlisted_zone_warnings_for_inherited_tpu_zones() -> None:
    data = set_path(base_config(), f"{TPU}.zone", None)
    data = set_path(data, "cluster.node_zones", ["us-central1-a", "us-central1-f"])
    data = set_path(data, f"{GPU}.zones", ["us-central1-a"])
    plan = load_environment_text(to_yaml(data))
    [tpu] = [p for p in plan.pools if p.kind == "tpu"]
    assert tpu.zones == ("us-central1-a",)  # us-central1-f has no v5e: not inherited
