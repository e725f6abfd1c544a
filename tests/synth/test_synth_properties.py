"""Property: whatever config the model accepts also synthesizes (no jsii or provider error)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gke_accel.model import ConfigError, load_environment_text
from helpers import base_config, set_path, to_yaml

# Values that pass parsing and often the rules, to reach the constructs with unusual but valid input.
MUTATIONS = st.sampled_from(
    [
        ("tpu_pools[0].topology", st.sampled_from(["1x1", "2x2", "2x4", "4x4", "8x8"])),
        ("tpu_pools[0].generation", st.sampled_from(["v5e", "v6e"])),
        ("tpu_pools[0].max_slices", st.integers(min_value=1, max_value=4)),
        ("tpu_pools[0].consumption", st.sampled_from(["spot", "on-demand", "flex-start", "queued"])),
        ("gpu_pools[0].gpu", st.sampled_from(["l4", "t4", "a100", "h100", "h200", "b200", "v100"])),
        ("gpu_pools[0].gpus_per_node", st.sampled_from([1, 2, 4, 8])),
        ("gpu_pools[0].machine_type", st.sampled_from([None, "n1-highcpu-4", "n1-standard-1", "custom-6-23040"])),
        ("gpu_pools[0].zones", st.sampled_from([[], ["us-central1-c"], ["us-central1-f"]])),
        ("gpu_pools[0].allow_unlisted_zone", st.booleans()),
        ("gpu_pools[0].consumption", st.sampled_from(["spot", "on-demand", "flex-start", "queued"])),
        (
            "gpu_pools[0].labels",
            st.dictionaries(
                st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True),
                st.from_regex(r"[a-z0-9_-]{0,10}", fullmatch=True),
                max_size=3,
            ),
        ),
        ("cluster.release_channel", st.sampled_from(["RAPID", "REGULAR", "STABLE", "EXTENDED"])),
        ("cluster.location", st.sampled_from(["us-central1", "us-central1-a"])),
    ]
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATIONS.flatmap(lambda m: st.tuples(st.just(m[0]), m[1])), min_size=1, max_size=4))
def test_every_accepted_config_synthesizes(
    synth: Callable[[dict[str, Any]], dict[str, Any]], changes: list[tuple[str, Any]]
) -> None:
    data = base_config()
    for path, value in changes:
        data = set_path(data, path, value)
    try:
        load_environment_text(to_yaml(data))
    except ConfigError:
        return
    doc = synth(data)
    assert doc["resource"]["google_container_cluster"]


def test_a_config_at_every_upper_limit_synthesizes(synth: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Validation's inclusive limits (nodes per zone, disk size, 64 slices, 32-bit quotas) synthesize."""
    data = base_config()
    for path, value in [
        ("gpu_pools[0].max_nodes", 2000),
        ("gpu_pools[0].zones", ["us-central1-a", "us-central1-b"]),
        ("gpu_pools[0].disk_size_gb", 65536),
        ("gpu_pools[0].labels", {"acme.example.com/Team": "NLP.1"}),
        ("cluster.system_pool", {"min_nodes": 1, "max_nodes": 1000, "disk_size_gb": 65536}),
        ("cluster.name", "a-cluster-name-of-thirty-nine-characters"[:39]),
        ("tpu_pools[0].topology", "4x4"),
        ("tpu_pools[0].max_slices", 64),
        ("teams", [{"name": "big", "google_group": "big@acme.example.com", "cpu": 2**31 - 1}]),
    ]:
        data = set_path(data, path, value)
    doc = synth(data)
    pools = doc["resource"]["google_container_node_pool"]
    assert len(pools) == 66  # 64 slice pools, the GPU pool, the system pool
    accounts = doc["resource"]["google_service_account"].values()
    [node_account] = [a["account_id"] for a in accounts if a["account_id"].endswith("-nodes")]
    assert len(node_account) <= 30 and node_account[-7] != "-"  # never "<name>--nodes" or cut mid-word
