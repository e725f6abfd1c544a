"""CPU pools (code review R3, newcomer N9): CPU-only pods get untainted general-purpose nodes; lint
never sends them to the system pool and says plainly when an environment has no node for them.

Expected allocatable: GKE "Plan GKE Standard node sizes" (tests/fixtures/gke-nodes/README.md, NS) worked
by hand for e2-standard-8 (8 vCPU, 32 GiB: Compute Engine general-purpose machine family):
cpu reserved 6% of 1 + 1% of 1 + 0.5% of 2 + 0.25% of 4 cores = 60 + 10 + 10 + 10 = 90m -> 7910m;
memory reserved 25% of 4 + 20% of 4 + 10% of 8 + 6% of 16 GiB = 3.56 GiB = 3645.44 MiB, eviction
threshold 100 MiB -> 32768 - 3645.44 - 100 = 29022 MiB."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from gke_accel.model.pools.node_shape import node_shape
from gke_accel.workloads.lint import lint_texts
from helpers import base_config, to_yaml

SYSTEM_TAINT = "components.gke.io/gke-managed-components"
RESTRICTED = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "runAsUser": 10001,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def _env(cpu_pools: list[dict[str, Any]] | None) -> EnvironmentPlan:
    data = base_config()
    if cpu_pools is not None:
        data["cpu_pools"] = cpu_pools
    data["teams"] = [
        {"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"v5e": 4}},
        {"name": "vision", "google_group": "vision@acme.example.com", "accelerators": {"l4": 1}},
    ]
    return load_environment_text(to_yaml(data))


def _cpu_job(namespace: str = "nlp") -> dict[str, Any]:
    resources = {"cpu": "2", "memory": "4Gi"}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "prep", "namespace": namespace},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{"name": "main", "image": "registry.example/prep:1",
                                    "resources": {"requests": resources, "limits": resources},
                                    "securityContext": RESTRICTED}],
                }
            },
        },
    }  # fmt: skip


def test_a_cpu_pool_is_untainted_general_purpose_nodes_sized_by_gke() -> None:
    plan = _env([{"name": "cpu", "max_nodes": 3}])
    [pool] = plan.cpu_pools
    shape = node_shape(pool)
    assert (pool.kind, pool.machine_type, pool.node_bounds()) == ("cpu", "e2-standard-8", (0, 3))
    assert shape.taints == () and shape.resource is None
    assert shape.labels["gke-accel/capacity"] == "on-demand" and shape.labels["gke-accel/pool"] == "cpu"
    assert shape.machine is not None
    assert (shape.machine.cpu_millis, shape.machine.memory_mib) == (7910, 29022)
    assert pool not in plan.pools  # not an accelerator pool: no flavor, no accelerator quota


def test_a_spot_cpu_pool_is_tainted_like_spot_accelerator_pools() -> None:
    [pool] = _env([{"name": "cpu", "consumption": "spot"}]).cpu_pools
    assert [(t.key, t.value, t.effect) for t in node_shape(pool).taints] == [
        ("cloud.google.com/gke-spot", "true", "NoSchedule")
    ]


def test_cpu_pool_mistakes_name_the_field_and_what_is_valid() -> None:
    with pytest.raises(ConfigError) as err:
        _env([{"name": "cpu", "machine_type": "a3-highgpu-8g", "max_nodes": 0, "zones": ["us-central1-f"]}])
    text = err.value.render()
    assert "cpu_pools[0].machine_type" in text and "e2-standard-8" in text
    assert "cpu_pools[0].max_nodes" in text
    assert "cpu_pools[0].zones[0]" in text and "us-central1-a" in text


def test_a_cpu_pool_name_may_not_clash_with_another_pool() -> None:
    with pytest.raises(ConfigError) as err:
        _env([{"name": "l4"}])
    assert "cpu_pools[0].name" in err.value.render()


def test_each_teams_cpu_only_quota_is_its_share_of_the_cpu_pools() -> None:
    """Two teams, 2 nodes of 7910m / 29022 MiB less the DaemonSet margin (1000m, 2048 MiB): 13.82 cores and
    52.7 GiB in all, 6 cores and 26 GiB each (floors), against 64 cores and 256 GiB without CPU pools."""
    without, small = _env(None), _env([{"name": "cpu", "max_nodes": 2}])
    for a, b in zip(without.teams, small.teams, strict=True):
        assert a.compute.cpu - b.compute.cpu == 64 - 6
        assert a.compute.memory_gib - b.compute.memory_gib == 256 - 26


def _lint(plan: EnvironmentPlan, doc: dict[str, Any]) -> dict[str, Any]:
    [wl] = lint_texts(plan, [("job.yaml", yaml.safe_dump(doc))]).to_dict()["workloads"]
    return wl


def test_lint_places_a_cpu_only_job_on_the_cpu_pool() -> None:
    wl = _lint(_env([{"name": "cpu"}]), _cpu_job())
    assert wl["pools"] == ["cpu"]
    assert not [f for f in wl["findings"] if f["severity"] == "error"]


def test_without_a_cpu_pool_lint_says_so_and_never_suggests_the_system_taint() -> None:
    wl = _lint(_env(None), _cpu_job())
    assert wl["pools"] == []
    [no_pool] = [f for f in wl["findings"] if f["rule"] == "no-pool"]
    assert "no node for a CPU-only pod" in no_pool["message"] and "cpu_pools" in no_pool["hint"]
    assert SYSTEM_TAINT not in yaml.safe_dump(wl["findings"])


def test_an_unknown_accelerator_name_gives_no_derived_placement_advice() -> None:
    """newcomer N9: a TPU pod asking for cloud.google.com/tpu gets the resource-name fix only."""
    doc = _cpu_job()
    resources = doc["spec"]["template"]["spec"]["containers"][0]["resources"]
    for part in ("requests", "limits"):
        resources[part]["cloud.google.com/tpu"] = 4
    wl = _lint(_env(None), doc)
    rules = {f["rule"] for f in wl["findings"] if f["severity"] == "error"}
    assert rules == {"resource-name"}
    assert SYSTEM_TAINT not in yaml.safe_dump(wl["findings"])
