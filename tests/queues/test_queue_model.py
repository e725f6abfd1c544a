"""The queue model: flavors derived from pool plans, quotas per team and flavor, ceilings that the
ResourceQuota uses, Kueue objects, and every rule with an accepted and a rejected case."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gke_accel.model import ConfigError, load_environment_text
from gke_accel.model.queues import QueuesSpec, TeamQueueSpec, team_local_queue, uses_kueue
from gke_accel.model.queues.flavors import plan_flavors
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from helpers import base_config, to_yaml


def shared_config() -> dict[str, Any]:
    """Three teams share 32 v5e chips (two 4x4 slices) and four L4 GPUs."""
    data = base_config()
    data["tpu_pools"] = [
        {"name": "v5e", "generation": "v5e", "topology": "4x4", "zone": "us-central1-a", "max_slices": 2}
    ]
    data["gpu_pools"] = [{"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 4, "consumption": "spot"}]
    data["teams"] = [
        {"name": "research", "google_group": "r@acme.example.com", "accelerators": {"v5e": 16}},
        {"name": "nlp", "google_group": "n@acme.example.com", "accelerators": {"v5e": 8, "l4": 2}},
        {"name": "serving", "google_group": "s@acme.example.com", "accelerators": {"v5e": 8, "l4": 2}},
    ]
    return data


def with_queues(data: dict[str, Any], queues: QueuesSpec | None) -> dict[str, Any]:
    """The config with ``queues:`` written as a user would (None: no Kueue)."""
    out = dict(data)
    out.pop("queues", None)
    if queues is not None:
        out["queues"] = {
            "enabled": queues.enabled,
            **({"cohort": queues.cohort} if queues.cohort else {}),
            "teams": {name: dataclasses.asdict(t) for name, t in queues.teams.items()},
        }
    return out


def plan_with(data: dict[str, Any], queues: QueuesSpec | None) -> Any:
    return queue_plan_of(load_environment_text(to_yaml(with_queues(data, queues))))


def issues_for(data: dict[str, Any], queues: QueuesSpec | None) -> list[str]:
    """Every issue of loading the config, rendered ([] when it loads)."""
    try:
        load_environment_text(to_yaml(with_queues(data, queues)))
    except ConfigError as exc:
        return [i.render() for i in exc.issues]
    return []


def test_flavors_come_from_the_pool_plans() -> None:
    env = load_environment_text(to_yaml(shared_config()))
    flavors = {f.name: f for f in plan_flavors(env.pools)}
    assert set(flavors) == {"v5e-4x4", "l4-spot"}
    tpu = flavors["v5e-4x4"]
    assert tpu.chips_max == 32 and len(tpu.pools) == 2  # one atomic pool per multi-host slice
    labels = dict(tpu.node_labels)
    assert labels["cloud.google.com/gke-tpu-topology"] == "4x4"
    assert labels["cloud.google.com/gke-tpu-accelerator"] == env.pools[0].accelerator
    gpu = flavors["l4-spot"]
    assert dict(gpu.node_labels) == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-spot": "true",
        "gke-accel/capacity": "spot",
        "gke-accel/gpu-unit": "whole",
    }
    # every taint of every pool is tolerated by its flavor, and nothing else
    for flavor in flavors.values():
        pool_taints = {(t.key, t.value) for p in env.pools if p.name in flavor.pools for t in p.taints}
        assert {(t.key, t.value) for t in flavor.tolerations} == pool_taints
    covered = {p for f in flavors.values() for p in f.pools}
    assert covered == {p.name for p in env.pools if p.kind != "system"}


def test_spot_and_on_demand_pools_of_one_gpu_get_two_flavors_and_the_quota_fills_on_demand_first() -> None:
    data = shared_config()
    data["gpu_pools"].append({"name": "l4-od", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 1})
    plan = plan_with(data, QueuesSpec())
    assert [f.name for f in plan.flavors] == ["l4", "l4-spot", "v5e-4x4"]
    nlp, serving = plan.teams[1], plan.teams[2]
    assert (nlp.quota("l4").nominal, nlp.quota("l4-spot").nominal) == (1, 1)
    assert (serving.quota("l4").nominal, serving.quota("l4-spot").nominal) == (0, 2)


def test_every_team_lists_every_flavor_so_it_can_borrow_idle_chips() -> None:
    plan = plan_with(shared_config(), QueuesSpec())
    research = plan.teams[0]
    assert research.quota("v5e-4x4").nominal == 16
    assert research.quota("l4-spot").nominal == 0  # no GPUs of its own, may still borrow idle ones
    assert research.ceilings == {"google.com/tpu": 32, "nvidia.com/gpu": 4}


def test_limits_lower_the_ceiling_the_resource_quota_uses() -> None:
    queues = QueuesSpec(
        teams={
            "research": TeamQueueSpec(borrowing_limit={"v5e": 8}),
            "nlp": TeamQueueSpec(lending_limit={"v5e": 0}),
        }
    )
    plan = plan_with(shared_config(), queues)
    research, nlp, serving = plan.teams
    assert research.quota("v5e-4x4").borrowing_limit == 8
    assert research.ceilings["google.com/tpu"] == 24
    assert nlp.ceilings["google.com/tpu"] == 32  # nlp lends nothing but may borrow the other 24
    assert serving.ceilings["google.com/tpu"] == 8 + 16  # research 16 lendable, nlp lends 0


def test_kueue_objects() -> None:
    queues = QueuesSpec(teams={"serving": TeamQueueSpec(preempt_when_borrowing=True)})
    plan = plan_with(shared_config(), queues)
    env = load_environment_text(to_yaml(shared_config()))
    objects = queue_manifests(plan, env.spec.platform.priority_classes)
    kinds = [o["kind"] for o in objects]
    # per team namespace: `team` (what workloads name) and `default` (what Kueue names when the label is missing)
    assert kinds.count("ClusterQueue") == 3 and kinds.count("LocalQueue") == 6
    assert kinds.count("WorkloadPriorityClass") == 3 and "AdmissionCheck" not in kinds
    assert kinds[-6:] == ["LocalQueue"] * 6  # namespaced objects last
    cqs = {o["metadata"]["name"]: o["spec"] for o in objects if o["kind"] == "ClusterQueue"}
    assert {s["cohortName"] for s in cqs.values()} == {"test"}
    serving = cqs["serving"]
    assert serving["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "serving"}}
    # reclaim only from lower priority: training never reclaims from a borrowing inference job (docs/queues.md)
    assert serving["preemption"] == {
        "reclaimWithinCohort": "LowerPriority",
        "withinClusterQueue": "LowerPriority",
        "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10000},
    }
    assert cqs["nlp"]["preemption"] == {"reclaimWithinCohort": "LowerPriority", "withinClusterQueue": "LowerPriority"}
    groups = {tuple(g["coveredResources"]): g["flavors"] for g in serving["resourceGroups"]}
    assert groups[("google.com/tpu",)] == [
        {"name": "v5e-4x4", "resources": [{"name": "google.com/tpu", "nominalQuota": 8}]}
    ]
    cpu = groups[("cpu", "memory")][0]["resources"]
    # serving may hold all 32 chips (8 ct5lp-hightpu-4t VMs) and 4 L4s (4 g2-standard-12): 64 + 8 x 110.65
    # + 4 x 10.9 = 992.8 cores, 256 GiB + (8 x 183,605 + 4 x 42,375) MiB = 1,855.9 GiB, rounded up
    # (tests/platform/test_team_compute.py computes the per-VM figures from GKE's published reservation)
    assert cpu == [
        {"name": "cpu", "nominalQuota": 993, "borrowingLimit": 0},
        {"name": "memory", "nominalQuota": "1856Gi", "borrowingLimit": 0},
    ]
    wpc = {o["metadata"]["name"]: o["value"] for o in objects if o["kind"] == "WorkloadPriorityClass"}
    assert wpc["inference"] > wpc["training"] > wpc["batch"]
    lq = next(o for o in objects if o["kind"] == "LocalQueue")
    assert lq["metadata"]["namespace"] == "research" and lq["spec"] == {"clusterQueue": "research"}
    lqs = [o for o in objects if o["kind"] == "LocalQueue"]
    queues = {(o["metadata"]["namespace"], o["metadata"]["name"]): o["spec"] for o in lqs}
    assert queues[("research", "team")] == queues[("research", "default")] == {"clusterQueue": "research"}
    assert queues[("serving", "default")] == {"clusterQueue": "serving"}


def test_queued_pools_get_a_provisioning_request_admission_check_on_their_flavor_only() -> None:
    data = shared_config()
    data["gpu_pools"].append(
        {
            "name": "h100-q",
            "gpu": "h100",
            "gpus_per_node": 8,
            "max_nodes": 2,
            "consumption": "queued",
            "zones": ["us-central1-a"],
        }
    )
    plan = plan_with(data, QueuesSpec())
    env = load_environment_text(to_yaml(with_queues(data, QueuesSpec())))
    objects = queue_manifests(plan, env.spec.platform.priority_classes)
    [check] = [o for o in objects if o["kind"] == "AdmissionCheck"]
    [config] = [o for o in objects if o["kind"] == "ProvisioningRequestConfig"]
    flavor = check["metadata"]["name"]
    assert flavor.endswith("-queued")
    assert check["spec"]["controllerName"] == "kueue.x-k8s.io/provisioning-request"
    # GKE's DWS page ("Run a large-scale workload with flex-start with queued provisioning") and the
    # Kueue v0.17 ProvisioningRequestConfig CRD: the ResizeRequest's name goes into the pods' nodeSelector.
    assert config["spec"] == {
        "provisioningClassName": "queued-provisioning.gke.io",
        "podSetUpdates": {
            "nodeSelector": [
                {
                    "key": "autoscaling.gke.io/provisioning-request",
                    "valueFromProvisioningClassDetail": "ResizeRequestName",
                }
            ]
        },
        "managedResources": ["nvidia.com/gpu"],
    }
    [flavor_obj] = [o for o in objects if o["kind"] == "ResourceFlavor" and o["metadata"]["name"] == flavor]
    # tests/fixtures/gke-nodes/gpu-h100-queued.yaml: GKE taints the nodes; Kueue adds the flavor's
    # tolerations to the pods it admits there.
    assert {"key": "cloud.google.com/gke-queued", "operator": "Equal", "value": "true", "effect": "NoSchedule"} in (
        flavor_obj["spec"]["tolerations"]
    )
    cq = next(o for o in objects if o["kind"] == "ClusterQueue")
    assert cq["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": flavor, "onFlavors": [flavor]}]}


def test_naming_contract() -> None:
    without = load_environment_text(to_yaml(shared_config())).spec
    assert not uses_kueue(without)
    assert team_local_queue(without, "nlp") is None
    data = with_queues(shared_config(), QueuesSpec())
    data["teams"][1]["namespace"] = "nlp-jobs"
    spec = load_environment_text(to_yaml(data)).spec
    assert uses_kueue(spec)
    assert team_local_queue(spec, "nlp") == ("nlp-jobs", "team")
    assert team_local_queue(spec, "nobody") is None
    assert not uses_kueue(load_environment_text(to_yaml(with_queues(shared_config(), QueuesSpec(enabled=False)))).spec)


# --- rules: accepted and rejected -----------------------------------------------------------------


def test_shared_config_is_accepted() -> None:
    assert issues_for(shared_config(), QueuesSpec(teams={"serving": TeamQueueSpec(preempt_when_borrowing=True)})) == []


def test_nominal_quotas_above_what_the_pools_hold_are_rejected() -> None:
    data = shared_config()
    data["teams"][0]["accelerators"]["v5e"] = 24  # 24 + 8 + 8 = 40 > 32
    [issue] = issues_for(data, QueuesSpec())
    assert "teams:" in issue and "add up to 40, above the 32" in issue and "at most 32" in issue


@pytest.mark.parametrize(
    ("limits", "ok"),
    [({"v5e": 16}, True), ({"v5e": 17}, False)],
)
def test_borrowing_limit_above_the_cohort_is_rejected(limits: dict[str, int], ok: bool) -> None:
    issues = issues_for(shared_config(), QueuesSpec(teams={"research": TeamQueueSpec(borrowing_limit=limits)}))
    if ok:
        assert issues == []
    else:
        [issue] = issues
        assert "queues.teams.research.borrowing_limit.v5e: 17" in issue and "0 to 16" in issue


@pytest.mark.parametrize(("limit", "ok"), [(8, True), (9, False)])
def test_lending_limit_above_the_nominal_quota_is_rejected(limit: int, ok: bool) -> None:
    issues = issues_for(shared_config(), QueuesSpec(teams={"nlp": TeamQueueSpec(lending_limit={"v5e": limit})}))
    assert (issues == []) is ok
    if not ok:
        assert "queues.teams.nlp.lending_limit.v5e: 9" in issues[0] and "0 to 8" in issues[0]


@pytest.mark.parametrize(
    ("key", "text"),
    [("v9z", "is not a GPU model or TPU generation"), ("h100", "has no flavor: no pool of this environment provides")],
)
def test_limits_for_unknown_flavors_are_rejected(key: str, text: str) -> None:
    [issue] = issues_for(shared_config(), QueuesSpec(teams={"nlp": TeamQueueSpec(borrowing_limit={key: 1})}))
    assert f"queues.teams.nlp.borrowing_limit.{key}" in issue and text in issue


def test_queue_settings_for_an_unknown_team_are_rejected() -> None:
    [issue] = issues_for(shared_config(), QueuesSpec(teams={"vision": TeamQueueSpec()}))
    assert "queues.teams.vision" in issue and "research" in issue


@pytest.mark.parametrize(("cohort", "ok"), [("acme-shared", True), ("Acme_Shared", False)])
def test_cohort_name(cohort: str, ok: bool) -> None:
    issues = issues_for(shared_config(), QueuesSpec(cohort=cohort))
    assert (issues == []) is ok


def test_a_queued_pool_without_kueue_is_rejected() -> None:
    data = shared_config()
    data["gpu_pools"][0]["consumption"] = "queued"
    for queues in (None, QueuesSpec(enabled=False)):
        [issue] = issues_for(data, queues)
        assert "gpu_pools[0].consumption: 'queued'" in issue and "needs Kueue" in issue
    assert issues_for(data, QueuesSpec()) == []


def test_a_flex_start_pool_needs_no_kueue() -> None:
    # GKE documents flex-start VMs without queued provisioning: no Kueue, no ProvisioningRequest.
    data = shared_config()
    data["gpu_pools"][0]["consumption"] = "flex-start"
    data["gpu_pools"][0].pop("node_count", None)
    assert issues_for(data, None) == []


def test_the_model_rejects_what_the_config_cannot_express() -> None:
    with pytest.raises(ConfigError):
        load_environment_text(to_yaml({**shared_config(), "teams": [{"name": "x"}]}))
