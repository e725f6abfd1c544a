"""What a first deploy needs, in the synthesized stacks: APIs enabled before anything else, local
state outside the synth output, the control plane reached through the DNS endpoint; and the Python
API rejecting the same mistakes as YAML with the same messages (one rule table, both doors)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import ConfigError, ConfigIssue, load_environment_text
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.environment.deploy_needs import RESOURCE_SERVICE, required_services
from helpers import base_config, resources, set_path, to_yaml

ROOT = Path(__file__).resolve().parents[2]


def test_every_stack_enables_the_apis_its_resources_use(shipped: dict[str, dict[str, Any]]) -> None:
    plans = {p.name: p for p in load_environments(ROOT / "config", ["dev", "staging", "prod"])}
    for env, doc in shipped.items():
        services = {r["service"]: r for r in resources(doc, "google_project_service")}
        assert set(services) == {s.name for s in required_services(plans[env])}, env
        assert all(r["disable_on_destroy"] is False for r in services.values())
        refs = {f"google_project_service.{key}" for key in doc["resource"]["google_project_service"]}
        for rtype, items in doc["resource"].items():
            if not rtype.startswith("google_") or rtype == "google_project_service":
                continue
            assert rtype in RESOURCE_SERVICE, f"{env}: {rtype} has no API in deploy_needs.RESOURCE_SERVICE"
            assert RESOURCE_SERVICE[rtype] in services, f"{env}: {rtype} needs {RESOURCE_SERVICE[rtype]}"
            for body in items.values():  # created only once the APIs are on
                assert refs <= set(body.get("depends_on", [])), f"{env}: {rtype}"


def test_local_state_is_kept_outside_the_synth_output(shipped: dict[str, dict[str, Any]]) -> None:
    backend = shipped["dev"]["terraform"]["backend"]
    # the stack runs in cdktf.out/stacks/dev: three levels up is the folder holding cdktf.out
    assert backend == {"local": {"path": "../../../terraform-state/dev.tfstate"}}
    assert "gcs" in shipped["prod"]["terraform"]["backend"]


def test_terraform_reaches_the_control_plane_through_the_dns_endpoint(shipped: dict[str, dict[str, Any]]) -> None:
    for env, doc in shipped.items():
        cluster = next(iter(doc["resource"]["google_container_cluster"].values()))
        assert cluster["control_plane_endpoints_config"] == {"dns_endpoint_config": {"allow_external_traffic": True}}
        provider = doc["provider"]["kubernetes"][0]
        assert provider["host"].startswith("https://${google_container_cluster.")
        assert "control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint" in provider["host"], env
        assert "cluster_ca_certificate" not in provider


def test_ip_access_uses_the_ip_endpoint_and_the_ca(synth: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    data = set_path(base_config(), "cluster.control_plane_access", "ip")
    doc = synth(set_path(data, "cluster.deployer_cidr", "10.8.0.0/24"))
    cluster = next(iter(doc["resource"]["google_container_cluster"].values()))
    assert cluster["control_plane_endpoints_config"]["dns_endpoint_config"]["allow_external_traffic"] is False
    provider = doc["provider"]["kubernetes"][0]
    assert provider["host"].endswith(".endpoint}") and "cluster_ca_certificate" in provider


# --- both doors: one rule table through YAML and through the constructs ---------------------------

# id, YAML path, bad value, the construct prop to break (door, field), issue path in YAML, message
DOORS = [
    (
        "release-channel",
        "cluster.release_channel",
        "WEEKLY",
        ("cluster", "release_channel"),
        "cluster.release_channel",
        "'WEEKLY' is not a valid choice",
    ),
    ("project-id", "project_id", "Acme_ML", ("project", None), "project_id", "'Acme_ML' is not a valid project ID"),
    ("region", "region", "central", ("region", None), "region", "'central' is not a region name"),
    (
        "pool-named-system",
        "gpu_pools[0].name",
        "system",
        ("gpu", "name"),
        "gpu_pools[0].name",
        "'system' is already used by cluster.system_pool",
    ),
    ("duplicate-pool", "gpu_pools[0].name", "v5e", ("gpu", "name"), "gpu_pools[0].name", "'v5e' is already used by"),
    (
        "consumption-choice",
        "tpu_pools[0].consumption",
        "cheap",
        ("tpu", "consumption"),
        "tpu_pools[0].consumption",  # the key as written (a shorthand), not consumption.type
        "'cheap' is not a valid choice",
    ),
    (
        "tpu-topology",
        "tpu_pools[0].topology",
        "3x3",
        ("tpu", "topology"),
        "tpu_pools[0].topology",
        "'3x3' is not valid for v5e",
    ),
]


def _yaml_issues(path: str, value: Any) -> list[ConfigIssue]:
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(set_path(base_config(), path, value)))
    return list(info.value.issues)


def _construct_issues(door: str, field: str | None, value: Any) -> list[ConfigIssue]:
    from gke_accel.cdk import GkeCluster, GpuNodePool, TpuSlicePool
    from gke_accel.cdk._framework import TerraformStack, Testing

    spec = load_environment_text(to_yaml(base_config())).spec
    props: dict[str, Any] = {"project": spec.project_id, "region": spec.region, "spec": spec.cluster}
    tpu, gpu = spec.tpu_pools[0], spec.gpu_pools[0]
    if door in ("project", "region"):
        props[door] = value
    elif door == "cluster":
        props["spec"] = dataclasses.replace(spec.cluster, **{field: value})  # type: ignore[arg-type]
    elif door == "tpu":
        tpu = dataclasses.replace(tpu, **{field: value})  # type: ignore[arg-type]
    else:
        gpu = dataclasses.replace(gpu, **{field: value})  # type: ignore[arg-type]
    stack = TerraformStack(Testing.app(), "doors")
    with pytest.raises(ConfigError) as info:
        cluster = GkeCluster(stack, "gke", **props)
        TpuSlicePool(stack, "tpu", cluster=cluster, spec=tpu)
        GpuNodePool(stack, "gpu", cluster=cluster, spec=gpu)
    assert "Traceback" not in info.value.render()
    return list(info.value.issues)


@pytest.mark.parametrize("row", DOORS, ids=[r[0] for r in DOORS])
def test_same_rule_same_message_through_both_doors(row: tuple[Any, ...]) -> None:
    _, path, bad, (door, field), issue_path, text = row
    from_yaml = [i for i in _yaml_issues(path, bad) if i.path == issue_path]
    assert from_yaml and text in from_yaml[0].render()
    from_code = [i for i in _construct_issues(door, field, bad) if text in i.render()]
    assert from_code, _construct_issues(door, field, bad)
    # the same message and the same list of what is valid; only the path's prefix names the door
    assert (from_code[0].message.split(" by ")[0], from_code[0].valid) == (
        from_yaml[0].message.split(" by ")[0],
        from_yaml[0].valid,
    )
    assert from_code[0].path.split(".")[-1] == issue_path.split(".")[-1] or door in ("project",)


def test_consumption_string_shorthand_works_from_python() -> None:
    from gke_accel.cdk import GkeCluster, TpuSlicePool
    from gke_accel.cdk._framework import TerraformStack, Testing
    from gke_accel.model import ClusterSpec, TpuPoolSpec

    stack = TerraformStack(Testing.app(), "shorthand")
    cluster = GkeCluster(
        stack, "gke", project="acme-ml", region="us-central1", spec=ClusterSpec(name="ml", location="us-central1-a")
    )
    pool = TpuSlicePool(
        stack,
        "v5e",
        cluster=cluster,
        spec=TpuPoolSpec(name="v5e", generation="v5e", topology="2x2", consumption="spot"),
    )  # type: ignore[arg-type]
    assert pool.plans[0].spot and pool.plans[0].consumption == "spot"
