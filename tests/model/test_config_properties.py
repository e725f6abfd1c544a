"""Property-based tests: any YAML document either loads into a valid environment, or fails with a
ConfigError whose every issue names a field. Never any other exception."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from helpers import base_config, set_path, to_yaml

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["v5e", "2x2", "2x2x2", "l4", "spot", "us-central1-a", "COS_CONTAINERD", "compact", "gcs"]),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=5)),
    max_leaves=25,
)

# Paths into the base config, so mutations land on real fields as often as on unknown ones.
PATHS = [
    "environment",
    "project_id",
    "region",
    "backend",
    "labels",
    "cluster.name",
    "cluster.location",
    "cluster.node_zones",
    "cluster.release_channel",
    "cluster.network",
    "cluster.network.pods_cidr",
    "cluster.maintenance",
    "cluster.auto_provisioning",
    "tpu_pools",
    "tpu_pools[0].generation",
    "tpu_pools[0].topology",
    "tpu_pools[0].zone",
    "tpu_pools[0].min_slices",
    "tpu_pools[0].max_slices",
    "tpu_pools[0].consumption",
    "tpu_pools[0].machine_type",
    "gpu_pools",
    "gpu_pools[0].gpu",
    "gpu_pools[0].gpus_per_node",
    "gpu_pools[0].machine_type",
    "gpu_pools[0].sharing",
    "gpu_pools[0].partition_size",
    "gpu_pools[0].node_count",
    "gpu_pools[0].consumption",
    "gpu_pools[0].extra",
]


def check(text: str) -> EnvironmentPlan | None:
    try:
        return load_environment_text(text)
    except ConfigError as err:
        assert err.issues, "a ConfigError must carry at least one issue"
        assert all(issue.path and issue.message for issue in err.issues), err.render()
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_any_yaml_document_loads_or_raises_config_error(doc: Any) -> None:
    check(yaml.safe_dump(doc))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATHS), documents)
def test_any_mutation_of_a_valid_config_loads_or_raises_config_error(path: str, value: Any) -> None:
    plan = check(to_yaml(set_path(base_config(), path, value)))
    if plan is not None:
        assert plan.cluster.system_pool.name == "system"
        for pool in plan.pools:
            low, high = pool.node_bounds()
            assert 0 <= low <= high


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_loads_or_raises_config_error(text: str) -> None:
    check(text)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["v5e", "v6e", "v5p", "v4", "tpu7x"]),
    st.lists(st.integers(min_value=1, max_value=32), min_size=2, max_size=3),
)
def test_any_topology_is_accepted_or_explained(generation: str, sides: list[int]) -> None:
    data = set_path(base_config(), "tpu_pools[0].generation", generation)
    data = set_path(data, "tpu_pools[0].topology", "x".join(map(str, sides)))
    data = set_path(data, "tpu_pools[0].zone", None)
    plan = check(to_yaml(data))
    if plan is not None:
        tpu = [p for p in plan.pools if p.kind == "tpu"]
        assert tpu and all(p.chips_per_node * p.node_bounds()[1] >= 1 for p in tpu)
