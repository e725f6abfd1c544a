"""Keys written in the wrong place get a pointer to where they belong, not a "did you mean" guess."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import ConfigError, load_environment_text
from helpers import base_config, set_path, to_yaml


def issue_at(path: str, value: Any) -> str:
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(set_path(base_config(), path, value)))
    return next(i.render() for i in info.value.issues if i.path == path)


def test_a_reservation_on_a_pool_points_to_consumption() -> None:
    for pool in ("gpu_pools[0]", "tpu_pools[0]"):
        message = issue_at(f"{pool}.reservation", "my-res")
        assert "unknown key" in message
        assert "consumption: {type: reservation, affinity: specific, reservation: NAME}" in message


def test_gpus_points_to_gpus_per_node_not_gpu() -> None:
    message = issue_at("gpu_pools[0].gpus", 8)
    assert "did you mean 'gpus_per_node'?" in message and "did you mean 'gpu'?" not in message


def test_zone_and_zones_point_to_the_field_of_the_pool_kind() -> None:
    assert "did you mean 'zones'?" in issue_at("gpu_pools[0].zone", "us-central1-a")
    assert "did you mean 'zone'?" in issue_at("tpu_pools[0].zones", ["us-central1-a"])


def test_a_key_elsewhere_keeps_the_spelling_suggestion() -> None:
    # `reservation` is a real field of consumption; outside a pool the table does not apply.
    assert "consumption" not in issue_at("cluster.reservation", "x")
    assert "did you mean 'release_channel'?" in issue_at("cluster.relase_channel", "REGULAR")


def test_the_right_place_is_accepted() -> None:
    data = set_path(base_config(), "gpu_pools[0].consumption", {"type": "reservation", "affinity": "any"})
    load_environment_text(to_yaml(data))
