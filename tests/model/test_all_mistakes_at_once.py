"""N8: every mistake of a file at once, across phases. A value that does not parse (max_nodes: "four")
is reported and its default stands in while the rules check the rest (topology: 3x3, gpus_per_node: 3),
with no follow-on finding about the defaulted field; a shorthand's mistake is reported at the key the
user wrote (consumption, not consumption.type)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gke_accel.model import ConfigError, load_environment_text

DEV = yaml.safe_load((Path(__file__).resolve().parents[2] / "config" / "dev.yaml").read_text())


def _paths(change: dict[str, object], tpu: dict[str, object] | None = None) -> list[tuple[str, str]]:
    data = yaml.safe_load(yaml.safe_dump(DEV))
    data["gpu_pools"][0].update(change)
    data["tpu_pools"][0].update(tpu or {})
    with pytest.raises(ConfigError) as info:
        load_environment_text(yaml.safe_dump(data), expected_name="dev")
    return [(i.path, i.message) for i in info.value.issues]


def test_a_parse_mistake_does_not_hide_the_rules_findings() -> None:
    found = _paths({"max_nodes": "four", "gpus_per_node": 3}, {"topology": "3x3"})
    assert [p for p, _ in found] == ["gpu_pools[0].max_nodes", "tpu_pools[0].topology", "gpu_pools[0].gpus_per_node"]
    assert found[0][1] == "'four' should be a whole number"


def test_no_follow_on_finding_about_the_defaulted_field() -> None:
    # min_nodes 3 is fine against the max the user meant; against the default max it would not be
    assert [p for p, _ in _paths({"min_nodes": 3, "max_nodes": "four"})] == ["gpu_pools[0].max_nodes"]


def test_a_shorthand_mistake_names_the_key_as_written() -> None:
    found = _paths({"consumption": "spott"}, {"topology": "3x3"})
    assert found[0] == ("gpu_pools[0].consumption", "'spott' is not a valid choice")
    assert ("tpu_pools[0].topology", "'3x3' is not valid for v5e") in found


def test_the_shipped_config_still_loads() -> None:
    assert load_environment_text(yaml.safe_dump(DEV), expected_name="dev").name == "dev"
