"""The JSON Schema of config/<env>.yaml (schema/gke-accel-config.schema.json) and the field reference
(docs/config-reference.md): they accept what the parser accepts, refuse unknown keys where the parser
does, are committed up to date, and every shipped config names the schema for editors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from all_rules import RULES

from gke_accel.cli.main import main
from gke_accel.model import ConfigError, load_environment_text
from gke_accel.model.schema.reference import CONSUMPTION_EXAMPLES
from helpers import base_config, rule_config, set_path, to_yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "schema" / "gke-accel-config.schema.json"
SHIPPED = sorted((ROOT / "config").glob("*.yaml"))
VALIDATOR = jsonschema.Draft7Validator(json.loads(SCHEMA_FILE.read_text()))


def schema_errors(data: Any) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(data)]


def test_the_committed_schema_is_a_valid_draft7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(VALIDATOR.schema)
    assert VALIDATOR.schema["additionalProperties"] is False
    assert set(VALIDATOR.schema["required"]) == {"environment", "project_id", "region", "cluster"}


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_config_names_the_schema_and_is_accepted(path: Path) -> None:
    text = path.read_text()
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../schema/gke-accel-config.schema.json"
    assert schema_errors(yaml.safe_load(text)) == []


TEST_CONFIGS = sorted((ROOT / "tests" / "fixtures" / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", TEST_CONFIGS, ids=[p.stem for p in TEST_CONFIGS])
def test_every_test_config_file_names_the_schema_and_is_accepted(path: Path) -> None:
    text = path.read_text()
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../../../schema/gke-accel-config.schema.json"
    assert schema_errors(yaml.safe_load(text)) == []


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_every_accepted_test_config_is_accepted_by_the_schema(rule: Any) -> None:
    assert schema_errors(rule_config(rule, rule.good)) == []


@pytest.mark.parametrize("title", list(CONSUMPTION_EXAMPLES))
def test_every_consumption_example_of_the_reference_loads_and_is_accepted(title: str) -> None:
    data = base_config()
    data["gpu_pools"] = yaml.safe_load(CONSUMPTION_EXAMPLES[title])
    if "queues" in title:
        data["queues"] = {}
    data["cluster"]["node_zones"] = ["us-central1-a", "us-central1-b", "us-central1-c"]
    load_environment_text(to_yaml(data))  # the model accepts it
    assert schema_errors(data) == []


# Mistakes the parser refuses as "unknown key" (the path it reports), at every level of nesting.
UNKNOWN_KEYS = [
    ("cluster.relase_channel", "REGULAR"),
    ("gpu_pools[0].reservation", "my-res"),
    ("gpu_pools[0].gpus", 8),
    ("gpu_pools[0].consumption", {"type": "reservation", "affinty": "any"}),
    ("tpu_pools[0].zones", ["us-central1-a"]),
    ("projectid", "acme"),
    ("cluster.network.subnet", "10.0.0.0/20"),
    ("teams", [{"name": "nlp", "google_group": "g@acme.example.com", "gpus": 2}]),
]


@pytest.mark.parametrize(("path", "value"), UNKNOWN_KEYS, ids=[p for p, _ in UNKNOWN_KEYS])
def test_unknown_keys_are_refused_by_the_parser_and_the_schema(path: str, value: Any) -> None:
    data = set_path(base_config(), path, value)
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    assert any("unknown key" in i.message for i in info.value.issues), info.value.render()
    errors = schema_errors(data)
    assert errors and any("Additional properties are not allowed" in e or "is not valid" in e for e in errors)


@pytest.mark.parametrize(
    ("path", "value"),
    [("gpu_pools[0].gpus_per_node", "one"), ("cluster.deletion_protection", "no"), ("gpu_pools[0].max_nodes", 2**31)],
)
def test_wrong_types_and_ranges_are_refused_by_both(path: str, value: Any) -> None:
    data = set_path(base_config(), path, value)
    with pytest.raises(ConfigError):
        load_environment_text(to_yaml(data))
    assert schema_errors(data)


def test_required_keys_are_required_by_both() -> None:
    data = base_config()
    del data["cluster"]["name"]
    with pytest.raises(ConfigError, match="is required"):
        load_environment_text(to_yaml(data))
    assert any("'name' is a required property" in e for e in schema_errors(data))


def test_a_plain_string_consumption_is_the_shorthand_both_accept() -> None:
    data = set_path(base_config(), "gpu_pools[0].consumption", "spot")
    load_environment_text(to_yaml(data))
    assert schema_errors(data) == []
    assert schema_errors(set_path(data, "gpu_pools[0].consumption", "spotty"))


def test_the_committed_schema_and_reference_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--check", "--root", str(ROOT)]) == 0, capsys.readouterr().err


def test_a_stale_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--write", "--root", str(tmp_path)]) == 0
    reference = tmp_path / "docs" / "config-reference.md"
    reference.write_text(reference.read_text().replace("max_nodes", "maxnodes"))
    assert main(["schema", "--check", "--root", str(tmp_path)]) == 1
    assert f"stale: {reference}" in capsys.readouterr().err


def test_the_reference_lists_every_field_with_its_default() -> None:
    text = (ROOT / "docs" / "config-reference.md").read_text()
    # Defaults as the spec classes document them (model/pools/spec.py, docs/configuration.md).
    assert "| `min_nodes` | whole number or null | `null` |" in text and "unset: 0" in text
    assert "| `disk_size_gb` | whole number | `200` |" in text
    assert (
        "| `type` | one of the valid values | `on-demand` | `on-demand`, `spot`, `reservation`, `queued`, `flex-start`"
        in text
    )
    assert "consumption: {type: reservation, affinity: specific, reservation: my-h100-reservation}" in text
    for key in ("environment", "gpu_pools", "teams", "queues", "monitoring", "budget"):
        assert f"| `{key}` |" in text
