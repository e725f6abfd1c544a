"""Dynamic Workload Scheduler: queued provisioning through Kueue's ProvisioningRequest admission check
carries the pool's run duration (GKE "Run a large-scale workload with flex-start with queued
provisioning": ``ProvisioningRequest.spec.parameters.maxRunDurationSeconds``, a string, at most 7 days;
Kueue v0.17 copies ``ProvisioningRequestConfig.spec.parameters`` into each request); flex-start pools
need no Kueue (the cluster autoscaler creates flex-start VMs for pending pods: GKE "About GPU
obtainability with flex-start"); and ``lint`` explains what a DWS workload misses (rule ``dws``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from helpers import base_config, to_yaml

QUEUED_H100 = {"name": "h100-q", "gpu": "h100", "gpus_per_node": 8, "max_nodes": 2, "zones": ["us-central1-a"]}
TEAM = {"name": "ml", "google_group": "ml@acme.example.com", "accelerators": {"h100": 16}}


def _env(consumption: Any, queues: bool = True) -> EnvironmentPlan:
    data = base_config()
    data["gpu_pools"] = [{**QUEUED_H100, "consumption": consumption}]
    data["teams"] = [TEAM]
    if queues:
        data["queues"] = {}
    return load_environment_text(to_yaml(data))


def _config(env: EnvironmentPlan) -> dict[str, Any]:
    plan = queue_plan_of(env)
    assert plan is not None
    [config] = [o for o in queue_manifests(plan, env.spec.platform.priority_classes)
                if o["kind"] == "ProvisioningRequestConfig"]  # fmt: skip
    return config


def test_the_pools_run_duration_goes_into_every_provisioning_request() -> None:
    config = _config(_env({"type": "queued", "max_run_duration_seconds": 3600}))
    assert config["spec"]["parameters"] == {"maxRunDurationSeconds": "3600"}
    assert config["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"
    assert "parameters" not in _config(_env("queued"))["spec"]  # GKE's default (7 days) when not set


def test_flex_start_needs_no_queue_but_queued_provisioning_does() -> None:
    env = _env("flex-start", queues=False)
    [pool] = [p for p in env.pools if p.name == "h100-q"]
    assert pool.flex_start and pool.autoscaling is not None and pool.autoscaling.min_nodes == 0
    with pytest.raises(ConfigError) as info:
        _env("queued", queues=False)
    assert "ProvisioningRequest" in info.value.render()


def _workload(env: EnvironmentPlan, kind: str = "job", flex_start: bool = False) -> dict[str, Any]:
    request = WorkloadRequest(
        name="train", team="ml", kind=kind, accelerator="h100", image="registry.k8s.io/pause:3.10", chips=8,
        checkpoints=False, flex_start=flex_start,
    )  # fmt: skip
    obj = new_workload(env, request)[0]  # a Deployment comes with its PodDisruptionBudget
    return obj


def _dws(env: EnvironmentPlan, obj: dict[str, Any]) -> list[dict[str, Any]]:
    [wl] = lint_texts(env, [("w.yaml", yaml.safe_dump(obj))]).to_dict()["workloads"]
    return [f for f in wl["findings"] if f["rule"] == "dws"]


def test_lint_explains_that_queued_capacity_needs_the_queue_label() -> None:
    env = _env("queued")
    obj = _workload(env)
    assert _dws(env, obj) == []
    bare = copy.deepcopy(obj)
    del bare["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    # W4e: in a team namespace Kueue puts it in the team's `default` LocalQueue, and it runs
    assert _dws(env, bare) == []
    bare["metadata"]["namespace"] = "elsewhere"  # no LocalQueue there: no ProvisioningRequest, Pending for ever
    [f] = _dws(env, bare)
    assert f["severity"] == "error" and "ProvisioningRequest" in f["message"]


@pytest.mark.parametrize(("value", "severity"), [("3600", None), ("604801", "error"), ("1h", "error")])
def test_lint_checks_the_run_duration_annotation(value: str, severity: str | None) -> None:
    env = _env("queued")
    obj = _workload(env)
    obj["metadata"].setdefault("annotations", {})["provreq.kueue.x-k8s.io/maxRunDurationSeconds"] = value
    found = _dws(env, obj)
    assert [f["severity"] for f in found] == ([] if severity is None else [severity])


def test_the_run_duration_annotation_is_a_warning_off_queued_capacity() -> None:
    env = _env("on-demand")
    obj = _workload(env)
    obj["metadata"].setdefault("annotations", {})["provreq.kueue.x-k8s.io/maxRunDurationSeconds"] = "3600"
    [f] = _dws(env, obj)
    assert f["severity"] == "warning" and "not queued" in f["message"]


def test_a_deployment_only_on_flex_start_is_cut_off_after_seven_days() -> None:
    assert _dws(_env("on-demand", queues=False), _workload(_env("on-demand", queues=False), "deployment")) == []
    env = _env("flex-start", queues=False)
    # workload new refuses a Deployment there unless --flex-start asks for it (tests/workloads/test_new_capacity.py)
    [f] = _dws(env, _workload(env, "deployment", flex_start=True))
    assert f["severity"] == "warning" and "7 days" in f["message"]
