"""``verify`` on cluster states built from our own plans: a healthy cluster passes; a drifted one
(a missing quota, a node without its accelerator, a wrong taint, a driver installer not ready) fails
with the object named; pools at zero nodes are reported, not failed."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.workloads.nodes import pool_nodes
from gke_accel.workloads.verify import ClusterState, verify_state
from gke_accel.workloads.verify.check import expected_objects
from gke_accel.workloads.verify.controllers import controller_deployments

ROOT = Path(__file__).resolve().parents[2]


def healthy_state(plan: EnvironmentPlan, *, skip_pools: tuple[str, ...] = ()) -> ClusterState:
    """One node per pool (as GKE shows it), every platform object, installer pods ready."""
    nodes = []
    for pool in pool_nodes(plan):
        if pool.name in skip_pools or pool.max_nodes == 0:
            continue
        nodes.append(
            {
                "metadata": {"name": f"{pool.name}-node-0", "labels": dict(pool.labels)},
                "spec": {"taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints]},
                "status": {"allocatable": {k: str(v) for k, v in pool.allocatable.items()} | {"cpu": "8"}},
            }
        )
    objects: dict[tuple[str, str, str], Any] = {}
    namespaces = set()
    pods = []
    for m in expected_objects(plan):
        meta = m["metadata"]
        if m["kind"] == "Namespace":
            namespaces.add(meta["name"])
        elif m["kind"] == "DaemonSet":
            for i, node in enumerate(nodes):
                labels = node["metadata"]["labels"]
                if "gke-accel/driver-variant" in labels:
                    pods.append(
                        {
                            "metadata": {
                                "name": f"installer-{i}",
                                "labels": dict(m["spec"]["selector"]["matchLabels"]),
                            },
                            "spec": {"nodeName": node["metadata"]["name"]},
                            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
                        }
                    )
        objects[(m["kind"], meta.get("namespace", ""), meta["name"])] = copy.deepcopy(m)
    system = next(
        n["metadata"]["name"] for n in nodes if n["metadata"]["name"].startswith(plan.cluster.system_pool.name)
    )
    for ns, name in controller_deployments(plan):  # as the Deployment and ReplicaSet controllers leave them
        objects[("Deployment", ns, name)] = {"metadata": {"name": name, "namespace": ns}, "spec": {"replicas": 1},
                                             "status": {"replicas": 1, "readyReplicas": 1}}  # fmt: skip
        owner = {"kind": "ReplicaSet", "name": f"{name}-5d8f7c9b6"}
        pods.append({"metadata": {"name": f"{name}-5d8f7c9b6-x2x7q", "namespace": ns, "ownerReferences": [owner]},
                     "spec": {"nodeName": system}, "status": {}})  # fmt: skip
    return ClusterState(nodes=nodes, pods=pods, objects=objects, namespaces=namespaces)


@pytest.fixture(scope="module")
def staging() -> EnvironmentPlan:
    return load_environment(ROOT / "config" / "staging.yaml")


def statuses(report: Any) -> dict[tuple[str, str], str]:
    return {(r.area, r.subject): r.status for r in report.rows}


def test_healthy_cluster_passes(staging: EnvironmentPlan) -> None:
    report = verify_state(staging, healthy_state(staging))
    assert report.ok, [r for r in report.rows if r.status == "FAIL"]
    got = statuses(report)
    assert got[("pool", "v5e-slice")] == "ok" and got[("driver", "nvidia-driver-installer")] == "ok"
    assert got[("ResourceQuota", "nlp/compute")] == "ok" and got[("namespace", "serving")] == "ok"


def test_pool_scaled_to_zero_is_reported_not_failed(staging: EnvironmentPlan) -> None:
    # staging's CPU pool scales from 0 to 6 nodes (config/staging.yaml); its TPU slices keep their VMs
    report = verify_state(staging, healthy_state(staging, skip_pools=("cpu",)))
    [row] = [r for r in report.rows if r.subject == "cpu"]
    assert (row.status, row.detail) == ("info", "0 nodes (scaled to zero; min 0, max 6)")
    assert report.ok
    # a pool whose minimum is above zero but has no nodes is a warning
    [row] = [
        r
        for r in verify_state(staging, healthy_state(staging, skip_pools=("l4-reserved",))).rows
        if r.subject == "l4-reserved"  # the reserved L4s stay up: min_nodes 2
    ]
    assert row.status == "warn"


def test_missing_quota_is_drift(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    del state.objects[("ResourceQuota", "nlp", "compute")]
    report = verify_state(staging, state)
    assert not report.ok and statuses(report)[("ResourceQuota", "nlp/compute")] == "FAIL"


def test_changed_quota_is_drift(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    state.objects[("ResourceQuota", "nlp", "compute")]["spec"]["hard"]["requests.google.com/tpu"] = "4"
    # with Kueue (staging), the quota is the Kueue ceiling: nominal 16 plus the 16 the cohort can lend
    [row] = [r for r in verify_state(staging, state).rows if r.subject == "nlp/compute"]
    assert row.status == "FAIL" and "requests.google.com/tpu=4, expected 32" in row.detail


def test_quantities_are_compared_by_value(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    hard = state.objects[("ResourceQuota", "nlp", "compute")]["spec"]["hard"]
    declared = hard["requests.memory"]  # e.g. 258Gi: the team's 256Gi plus room for GCS FUSE sidecars
    unit = {"Gi": 2**30, "Mi": 2**20}[declared[-2:]]
    hard["requests.memory"] = str(int(declared[:-2]) * unit)  # the same quantity in bytes
    assert verify_state(staging, state).ok


def test_node_without_its_accelerator_is_drift(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    node = next(n for n in state.nodes if n["metadata"]["name"].startswith("v5e-slice"))
    del node["status"]["allocatable"]["google.com/tpu"]
    node["spec"]["taints"] = []
    report = verify_state(staging, state)
    [row] = [r for r in report.rows if r.area == "node"]
    assert row.status == "FAIL"
    assert "allocatable google.com/tpu=(none), expected 4" in row.detail
    assert "taint google.com/tpu=present:NoSchedule missing" in row.detail
    assert statuses(report)[("pool", "v5e-slice")] == "FAIL"


def test_wrong_label_and_unknown_pool(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    node = next(n for n in state.nodes if n["metadata"]["name"].startswith("l4-serve"))
    node["metadata"]["labels"]["cloud.google.com/gke-accelerator"] = "nvidia-tesla-t4"
    state.nodes.append({"metadata": {"name": "stray", "labels": {"cloud.google.com/gke-nodepool": "old"}}})
    report = verify_state(staging, state)
    [row] = [r for r in report.rows if r.area == "node"]
    assert "label cloud.google.com/gke-accelerator=nvidia-tesla-t4, expected nvidia-l4" in row.detail
    assert statuses(report)[("pool", "old")] == "warn"


def test_driver_installer_not_ready_is_drift(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    state.pods[0]["status"]["conditions"][0]["status"] = "False"
    [row] = [r for r in verify_state(staging, state).rows if r.area == "driver"]
    assert row.status == "FAIL" and "no ready installer pod on l4-reserved-node-0" in row.detail


def test_service_account_annotation_is_checked(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    state.objects[("ServiceAccount", "serving", "workload")]["metadata"]["annotations"] = {}
    [row] = [r for r in verify_state(staging, state).rows if r.subject == "serving/workload"]
    assert row.status == "FAIL" and "expected serving-staging-wi@acme-ml-staging" in row.detail


def test_missing_namespace(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    del state.objects[("Namespace", "", "serving")]
    assert statuses(verify_state(staging, state))[("namespace", "serving")] == "FAIL"


def test_smoke_pods_are_built_like_templates_in_a_team_namespace_with_quota(staging: EnvironmentPlan) -> None:
    from gke_accel.workloads.lint.podsecurity import violations
    from gke_accel.workloads.verify.smoke import smoke_pods

    pods, rows = smoke_pods(staging)
    assert rows == []
    by_kind = {pool.plan.kind: pod for pool, pod in pods}
    tpu, gpu = by_kind["tpu"], by_kind["gpu"]
    assert tpu["metadata"]["namespace"] == "nlp"  # the team with a v5e quota
    assert tpu["spec"]["containers"][0]["resources"]["limits"]["google.com/tpu"] == "4"  # one VM of the 2x4 slice
    assert gpu["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    # the pool with nodes at its minimum: l4-reserved, rung 1 of staging's L4 ladder (its class and rung
    # labels: a smoke pod checks one pool, so it pins the rung)
    assert gpu["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "gke-accel/capacity": "reservation",
        "cloud.google.com/compute-class": "l4",
        "gke-accel/capacity-rung": "reservation-r-l4-serve",
        "gke-accel/gpu-unit": "whole",
    }
    assert violations(gpu["spec"], "restricted") == []
    assert "volumes" not in gpu["spec"] or all(v["name"] != "checkpoints" for v in gpu["spec"]["volumes"])


def test_a_node_without_an_undocumented_label_is_not_drift() -> None:
    """Code review R8: GKE's page does not say a specific-reservation pool's nodes carry
    cloud.google.com/reservation-name (tests/fixtures/gke-nodes/README.md, RES: UNVERIFIED), so a node
    without it passes; a documented label that is wrong still fails."""
    import yaml

    from gke_accel.model import load_environment_text
    from helpers import base_config, to_yaml

    fixture = yaml.safe_load((ROOT / "tests" / "fixtures" / "gke-nodes" / "gpu-h100-reservation.yaml").read_text())
    data = base_config()
    data["cluster"]["node_zones"] = ["us-central1-a"]
    data["tpu_pools"], data["gpu_pools"] = [], [fixture["pool"]]
    plan = load_environment_text(to_yaml(data))
    node = copy.deepcopy(fixture["node"])
    [pool] = [p for p in pool_nodes(plan) if p.name == fixture["pool"]["name"]]
    node["metadata"]["labels"].update({k: v for k, v in pool.labels.items() if k.startswith("gke-accel/")})  # ours
    del node["metadata"]["labels"]["cloud.google.com/reservation-name"]
    state = ClusterState(nodes=[node], pods=[], objects={}, namespaces=set())
    report = verify_state(plan, state)
    assert [r.detail for r in report.rows if r.area == "node"] == []  # a node row is a problem
    assert statuses(report)[("pool", pool.name)] == "ok"
    node["metadata"]["labels"]["cloud.google.com/gke-accelerator"] = "nvidia-h100-mega-80gb"
    [row] = [r for r in verify_state(plan, state).rows if r.area == "node"]
    assert row.status == "FAIL" and "cloud.google.com/gke-accelerator" in row.detail
