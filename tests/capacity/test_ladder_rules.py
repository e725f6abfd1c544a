"""Every rule of ``capacity:`` (model/capacity/rules.py): an accepted and a rejected config each, the
rejection naming the field, the bad value and what is valid; and all mistakes reported at once."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import ConfigError, load_environment_text
from helpers import set_path, to_yaml
from ladder_config import ladder_config

RUNGS = "capacity.v5e-2x4.rungs"


def _load(data: dict[str, Any]) -> Any:
    return load_environment_text(to_yaml(data))


def _issues(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        _load(data)
    return {i.path: i.render() for i in info.value.issues}


# (id, accepted rungs, rejected rungs, issue path, text in the rejection)
CASES = [
    ("consumption-offered", ["on-demand"], ["on-demand", "queued-ish"], f"{RUNGS}[1]", "is not a rung"),
    ("reservation-named", ["reservation/r-ml-1"], ["reservation"], f"{RUNGS}[0]", "does not name the reservation"),
    ("reservation-exists", ["reservation/r-ml-1"], ["reservation/r-other"], f"{RUNGS}[0]", "reservation/r-ml-1"),
    (
        "shared-reservation-project",
        ["reservation/projects/acme-capacity/reservations/r-pool"],
        ["reservation/r-pool"],
        f"{RUNGS}[0]",
        "names a shared reservation without its project",
    ),
    ("pool-exists", ["pool/v5e-od"], ["pool/v5e-nope"], f"{RUNGS}[0]", "names no pool of this environment"),
    ("pool-shape-agrees", ["pool/v5e-od"], ["pool/l4"], f"{RUNGS}[0]", "the shapes of a ladder agree"),
    ("pool-one-rung", ["pool/v5e-od", "spot"], ["pool/v5e-od", "on-demand"], f"{RUNGS}[1]", "already behind"),
    ("rung-once", ["on-demand", "spot"], ["spot", "spot"], f"{RUNGS}[1]", "appears twice"),
    ("no-flex-start-with-spot", ["flex-start", "spot"], ["flex-start+spot"], f"{RUNGS}[0]", "GKE refuses"),
    ("queued-not-a-rung", ["flex-start"], ["queued"], f"{RUNGS}[0]", "ProvisioningRequest"),
    ("not-empty", ["spot"], [], f"{RUNGS}", "is empty"),
]


@pytest.mark.parametrize(("rule", "good", "bad", "path", "text"), CASES, ids=[c[0] for c in CASES])
def test_rule_accepts_and_rejects(rule: str, good: list[str], bad: list[str], path: str, text: str) -> None:
    _load(ladder_config(good))
    data = ladder_config()
    data["capacity"]["v5e-2x4"]["rungs"] = bad
    issues = _issues(data)
    assert path in issues, issues
    assert text in issues[path], issues[path]


def test_the_shape_must_be_one_of_the_pools() -> None:
    _load(ladder_config())
    data = ladder_config()
    data["capacity"] = {"v5e-4x4": {"rungs": ["on-demand"]}}
    issues = _issues(data)
    assert "is not the shape of any pool" in issues["capacity.v5e-4x4"]
    assert "v5e-2x4" in issues["capacity.v5e-4x4"] and "l4" in issues["capacity.v5e-4x4"]  # the valid shapes


def test_when_unsatisfiable_takes_gke_values_only() -> None:
    _load(set_path(ladder_config(), "capacity.v5e-2x4.when_unsatisfiable", "ScaleUpAnyway"))
    issues = _issues(set_path(ladder_config(), "capacity.v5e-2x4.when_unsatisfiable", "Wait"))
    assert "DoNotScaleUp" in issues["capacity.v5e-2x4.when_unsatisfiable"]


# GKE "About custom ComputeClasses": custom ComputeClasses from 1.30.3-gke.1451000; reservations in a
# class from 1.31.1-gke.2105000.
@pytest.mark.parametrize(
    ("rungs", "good", "bad", "text"),
    [
        (["on-demand", "spot"], "1.30.3-gke.1451000", "1.30.3-gke.1000000", "custom ComputeClasses"),
        (["reservation/r-ml-1", "spot"], "1.31.1-gke.2105000", "1.31.1-gke.2000000", "reservations in ComputeClasses"),
    ],
    ids=["compute-class", "reservation-rule"],
)
def test_gke_version_gates(rungs: list[str], good: str, bad: str, text: str) -> None:
    _load(set_path(ladder_config(rungs), "cluster.min_master_version", good))
    issues = _issues(set_path(ladder_config(rungs), "cluster.min_master_version", bad))
    assert text in issues["cluster.min_master_version"], issues


def test_every_mistake_at_once() -> None:
    data = ladder_config(["reservation", "pool/nope", "spot", "spot", "queued"])
    issues = _issues(data)
    assert {f"{RUNGS}[{i}]" for i in (0, 1, 3, 4)} <= set(issues), issues
    assert f"{RUNGS}[2]" not in issues


def test_pools_of_the_shape_left_out_are_a_warning() -> None:
    plan = _load(ladder_config(["on-demand"]))
    assert any("v5e-spot" in w and "serve no rung" in w for w in plan.warnings), plan.warnings
    full = ladder_config(["reservation/r-ml-1", "reservation/projects/acme-capacity/reservations/r-pool"])
    full["capacity"]["v5e-2x4"]["rungs"] += ["on-demand", "flex-start", "spot"]
    assert not [w for w in _load(full).warnings if "serve no rung" in w]
