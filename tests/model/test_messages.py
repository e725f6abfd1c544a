"""Messages that help instead of hiding (reliability findings D11, D12): one typo does not hide the
file's other mistakes, suggestions name the field meant, long error lists are capped, and a shell
command in a hint pastes the ref quoted."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gke_accel.model import ConfigError, load_environment_text
from gke_accel.review.git_base import BaseError, resolve
from helpers import base_config, set_path, to_yaml


def errors(data: dict[str, object]) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    return [i.render() for i in info.value.issues]


def test_an_unknown_key_does_not_hide_the_other_mistakes() -> None:
    data = set_path(base_config(), "cluster.relase_channel", "STABLE")
    data = set_path(data, "tpu_pools[0].topology", "3x3")  # v5e slices are 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, ...
    data = set_path(data, "gpu_pools[0].gpus_per_node", 3)  # g2 machines have 1, 2, 4 or 8 L4s
    found = errors(data)
    assert any(e.startswith("cluster.relase_channel: unknown key; did you mean 'release_channel'?") for e in found)
    assert any(e.startswith("tpu_pools[0].topology") for e in found), found
    assert any(e.startswith("gpu_pools[0].gpus_per_node") for e in found), found


def test_a_suggestion_prefers_the_field_whose_type_takes_the_value() -> None:
    pool = {"name": "l4", "gpu": "l4", "gpus": 8, "max_nodes": 2}
    found = errors(set_path(base_config(), "gpu_pools", [pool]))
    assert any("gpu_pools[0].gpus: unknown key; did you mean 'gpus_per_node'?" in e for e in found), found
    found = errors(set_path(base_config(), "gpu_pools", [{"name": "l4", "gpus_per_node": 1, "gpuu": "l4"}]))
    assert any("gpu_pools[0].gpuu: unknown key; did you mean 'gpu'?" in e for e in found), found


def test_error_output_is_capped_with_a_count() -> None:
    data = base_config()
    for i in range(120):
        data[f"unknown_{i:03d}"] = i
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    text = info.value.render()
    assert text.startswith("120 config errors:")
    assert text.count("\n  - <config>: unknown_") == 50
    assert text.endswith("... and 70 more (the first 50 are shown)")


@pytest.mark.parametrize(
    ("ref", "hint"),
    [
        ("main; touch /tmp/PWNED1", "(git fetch origin 'main; touch /tmp/PWNED1')"),
        ("$(touch x)", "(git fetch origin '$(touch x)')"),
        ("HEAD:config/dev.yaml", "(git fetch origin HEAD:config/dev.yaml)"),
        ("origin/release 1", "(git fetch origin 'release 1')"),
    ],
)
def test_the_fetch_hint_quotes_the_ref(tmp_path: Path, ref: str, hint: str) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(BaseError) as info:
        resolve(tmp_path, ref)
    assert hint in str(info.value), str(info.value)
