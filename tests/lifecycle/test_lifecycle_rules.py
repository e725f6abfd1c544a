"""Every lifecycle rule with an accepted and a rejected value (model/lifecycle/rules.py).

Limits by source: NO_UPGRADES at most 90 days and 3 per cluster ("Maintenance windows and exclusions";
90 since 2026), at most 20 exclusion blocks (google provider 8.0.0 schema, max_items), a minor version's
standard support of 14 months (426 days checked) and 24 months on EXTENDED (GKE extended support),
compact placement without blue-green (catalog-facts.md C3), max_surge + max_unavailable > 0 ("Configure
node upgrade strategies")."""

from __future__ import annotations

from typing import Any

import pytest
from lifecycle_configs import production_roles

from gke_accel.model import ConfigError, load_environment_text
from helpers import Rule, assert_rule_accepts, assert_rule_rejects, to_yaml

EX = "cluster.maintenance.exclusions"


def _ex(**kw: Any) -> list[dict[str, Any]]:
    return [{"name": "hold", "start_time": "2026-01-01T00:00:00Z", **kw}]


def _many(n: int, scope: str) -> list[dict[str, Any]]:
    return [
        {
            "name": f"e{i}",
            "start_time": f"2026-{i % 12 + 1:02d}-01T00:00:00Z",
            "end_time": f"2026-{i % 12 + 1:02d}-02T00:00:00Z",
            "scope": scope,
        }
        for i in range(n)
    ]


SLICE = {
    "name": "s",
    "generation": "v5e",
    "topology": "2x4",
    "machine_type": "ct5lp-hightpu-4t",
    "zone": "us-central1-a",
}

RULES = [
    Rule(
        "no-upgrades-duration",
        EX,
        _ex(end_time="2026-03-31T00:00:00Z", scope="NO_UPGRADES"),
        _ex(end_time="2026-04-02T00:00:00Z", scope="NO_UPGRADES"),
        f"{EX}[0].end_time",
        "91-day NO_UPGRADES",
    ),
    Rule(
        "no-upgrades-count",
        EX,
        _many(3, "NO_UPGRADES"),
        _many(4, "NO_UPGRADES"),
        f"{EX}[3].scope",
        "4th NO_UPGRADES exclusion; GKE allows 3",
    ),
    Rule("exclusion-count", EX, _many(20, "NO_MINOR_UPGRADES"), _many(21, "NO_MINOR_UPGRADES"), EX, "at most 20"),
    Rule(
        "until-end-of-support-scope",
        EX,
        _ex(end_time_behavior="UNTIL_END_OF_SUPPORT"),
        _ex(end_time_behavior="UNTIL_END_OF_SUPPORT", scope="NO_UPGRADES"),
        f"{EX}[0].end_time_behavior",
        "cannot hold a NO_UPGRADES exclusion",
    ),
    Rule(
        "until-end-of-support-no-end-time",
        EX,
        _ex(end_time_behavior="UNTIL_END_OF_SUPPORT"),
        _ex(end_time_behavior="UNTIL_END_OF_SUPPORT", end_time="2026-02-01T00:00:00Z"),
        f"{EX}[0].end_time",
        "leave end_time out",
    ),
    Rule("end-time-required", EX, _ex(end_time="2026-02-01T00:00:00Z"), _ex(), f"{EX}[0].end_time", "is required"),
    Rule(
        "scoped-outlasts-support",
        EX,
        _ex(end_time="2027-02-01T00:00:00Z"),
        _ex(end_time="2027-03-05T00:00:00Z"),
        f"{EX}[0].end_time",
        "no upgrade allowed",
    ),
    Rule(
        "scoped-extended-support",
        "cluster.release_channel",
        "EXTENDED",
        "STABLE",
        f"{EX}[0].end_time",
        "past the 426-day support",
        setup={EX: _ex(end_time="2027-06-01T00:00:00Z")},
    ),
    Rule(
        "minor-interval-before-end-of-support",
        "cluster.maintenance.disruption_budget",
        {"minor_interval_days": 60},
        {"minor_interval_days": 426},
        "cluster.maintenance.disruption_budget.minor_interval_days",
        "no minor upgrade could come",
    ),
    Rule(
        "patch-interval-positive",
        "cluster.maintenance.disruption_budget",
        {"patch_interval_hours": 48},
        {"patch_interval_hours": 0},
        "cluster.maintenance.disruption_budget.patch_interval_hours",
        "1 or more",
    ),
    Rule(
        "blue-green-not-compact",
        "gpu_pools[0].placement",
        "none",
        "compact",
        "gpu_pools[0].lifecycle.upgrade",
        "COMPACT placement",
        setup={
            "gpu_pools[0]": {
                "name": "l4",
                "gpu": "l4",
                "gpus_per_node": 1,
                "max_nodes": 2,
                "zones": ["us-central1-a"],
                "lifecycle": {"upgrade": "blue-green"},
            }
        },
    ),
    Rule(
        "blue-green-not-slice",
        "tpu_pools[0].lifecycle",
        {"upgrade": "surge", "max_surge": 0, "max_unavailable": 2},
        {"upgrade": "blue-green"},
        "tpu_pools[0].lifecycle.upgrade",
        "a TPU slice",
        setup={"tpu_pools[0]": SLICE},
    ),
    Rule(
        "no-split-slice",
        "tpu_pools[0].lifecycle",
        {"max_unavailable": 2},
        {"max_surge": 1, "max_unavailable": 0},
        "tpu_pools[0].lifecycle.max_unavailable",
        "part of a 2-VM multi-host slice",
        setup={"tpu_pools[0]": SLICE},
    ),
    Rule(
        "surge-not-zero",
        "gpu_pools[0].lifecycle",
        {"max_surge": 0, "max_unavailable": 1},
        {"max_surge": 0, "max_unavailable": 0},
        "gpu_pools[0].lifecycle.max_unavailable",
        "lets no node upgrade",
    ),
    Rule(
        "surge-not-negative",
        "gpu_pools[0].lifecycle",
        {"max_surge": 2},
        {"max_surge": -1},
        "gpu_pools[0].lifecycle.max_surge",
        "is negative",
    ),
    Rule(
        "soak-only-blue-green",
        "gpu_pools[0].lifecycle",
        {"upgrade": "blue-green", "soak_hours": 1},
        {"upgrade": "surge", "soak_hours": 1},
        "gpu_pools[0].lifecycle.soak_hours",
        "only used by blue-green",
    ),
    Rule(
        "exclusion-start-rfc3339",
        "lifecycle.exclusion_start",
        "2026-12-01T00:00:00Z",
        "2026-12-01 00:00",
        "lifecycle.exclusion_start",
        "time zone",
        setup={"tpu_pools[0].role": "training"},
    ),
    Rule(
        "derived-name-free",
        EX,
        _ex(name="mine", end_time="2026-02-01T00:00:00Z"),
        [{"name": "gke-accel-training", "start_time": "2026-01-01T00:00:00Z", "end_time": "2026-02-01T00:00:00Z"}],
        EX,
        "the training exclusion gke-accel adds",
        setup={"tpu_pools[0].role": "training"},
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects(rule: Rule) -> None:
    assert_rule_rejects(rule)


def test_all_lifecycle_mistakes_are_reported_at_once() -> None:
    data = production_roles()
    data["cluster"]["maintenance"]["exclusions"] = _ex(end_time="2026-06-01T00:00:00Z", scope="NO_UPGRADES")
    data["tpu_pools"][0]["lifecycle"] = {"upgrade": "blue-green"}
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    paths = {i.path for i in info.value.issues}
    assert {f"{EX}[0].end_time", "tpu_pools[0].lifecycle.upgrade"} <= paths


def _warnings(data: dict[str, Any]) -> list[str]:
    return list(load_environment_text(to_yaml(data)).warnings)


def test_unprotected_training_pool_in_production_warns() -> None:
    data = production_roles()
    assert not [w for w in _warnings(data) if "no maintenance exclusion" in w]
    data["tpu_pools"][0]["lifecycle"] = {"protect": False}
    [warning] = [w for w in _warnings(data) if "no maintenance exclusion" in w]
    assert warning.startswith("tpu_pools[0].lifecycle.protect: training pool train")


def test_production_pool_without_a_role_warns() -> None:
    data = production_roles()
    assert not [w for w in _warnings(data) if "has no role" in w]
    data["teams"][0]["priority_classes"] = []  # every class: says nothing about the pool
    [warning] = [w for w in _warnings(data) if "has no role" in w]
    assert warning.startswith("gpu_pools[0].role: pool serve")
