"""Kueue, JobSet and the queue objects in the synthesized stacks: Helm releases (nothing that needs
the cluster's API at plan time), pinned charts, and a generated chart holding exactly the queue
objects of the model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import load_environment
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from helpers import QUOTA_ONLY_CONFIG, one, resources
from ladder_config import ladder_config

CONFIG = Path(__file__).resolve().parents[2] / "config"
RELEASE = "helm_release"


def cluster_address(doc: dict[str, Any]) -> str:
    [name] = doc["resource"]["google_container_cluster"]
    return f"google_container_cluster.{name}"


def system_pool_address(doc: dict[str, Any]) -> str:
    [name] = [n for n, p in doc["resource"]["google_container_node_pool"].items() if p["name"] == "system"]
    return f"google_container_node_pool.{name}"


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_release_waits_for_the_system_pool_its_controllers_run_on(shipped: dict[str, Any], env: str) -> None:
    """Code review R11: the releases are atomic and wait for their pods, which select the system pool
    (SYSTEM_PLACEMENT below); created in parallel with the pool, a release can time out and roll back."""
    doc = shipped[env]
    releases = resources(doc, RELEASE)
    assert releases
    for release in releases:
        assert system_pool_address(doc) in release["depends_on"], release["name"]


def test_the_compute_class_release_waits_for_the_system_pool_too(
    synth: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    doc = synth(ladder_config())  # capacity ladders: the ComputeClasses release (cdk/capacity.py)
    capacity = one(doc, RELEASE, name="gke-accel-capacity")
    assert capacity["depends_on"] == [cluster_address(doc), system_pool_address(doc)]
    assert len(doc["provider"]["helm"]) == 1  # the one Helm provider, on the cluster's one connection


def test_kueue_and_jobset_are_pinned_official_charts(shipped: dict[str, Any]) -> None:
    doc = shipped["staging"]
    kueue = one(doc, RELEASE, name="kueue")
    assert (kueue["repository"], kueue["chart"], kueue["version"]) == (
        "oci://registry.k8s.io/kueue/charts",
        "kueue",
        "0.19.2",
    )
    jobset = one(doc, RELEASE, name="jobset")
    assert (jobset["repository"], jobset["chart"], jobset["version"]) == (
        "oci://registry.k8s.io/jobset/charts",
        "jobset",
        "0.12.0",
    )
    for release in (kueue, jobset):
        assert release["atomic"] is True and release["wait"] is True
        assert release["depends_on"] == [cluster_address(doc), system_pool_address(doc)]
    config = yaml.safe_load(yaml.safe_load(kueue["values"][0])["managerConfig"]["controllerManagerConfigYaml"])
    assert config["manageJobsWithoutQueueName"] is True
    selector = config["managedJobsNamespaceSelector"]["matchExpressions"][0]
    assert selector["values"] == ["nlp", "research", "serving"]
    assert "kubernetes_manifest" not in doc["resource"]


def test_the_queue_chart_holds_exactly_the_models_queue_objects(shipped: dict[str, Any], shipped_stacks: Path) -> None:
    doc = shipped["staging"]
    release = one(doc, RELEASE, name="gke-accel-queues")
    chart = shipped_stacks / "staging" / release["chart"]
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    assert meta["apiVersion"] == "v2" and meta["name"] == "gke-accel-queues"
    objects = [o for o in yaml.safe_load_all((chart / "templates" / "queues.yaml").read_text()) if o]
    plan = load_environment(CONFIG / "staging.yaml")
    queues = queue_plan_of(plan)
    assert queues is not None
    assert objects == queue_manifests(queues, plan.spec.platform.priority_classes)
    assert "{{" not in (chart / "templates" / "queues.yaml").read_text()  # nothing for Helm to template
    # after Kueue (CRDs, webhooks), JobSet and the team namespaces the LocalQueues live in
    deps = release["depends_on"]
    assert any(d.startswith("helm_release.") and "kueue" in d for d in deps)
    assert sum(d.startswith("kubernetes_namespace_v1.") for d in deps) == 3


# docs/deploy.md "Where controllers run": the system pool's nodePool label and its taint, by hand
SYSTEM_PLACEMENT = {
    "nodeSelector": {"cloud.google.com/gke-nodepool": "system"},
    "tolerations": [
        {
            "key": "components.gke.io/gke-managed-components",
            "operator": "Equal",
            "value": "true",
            "effect": "NoSchedule",
        }
    ],
}


def test_dev_installs_kueue_and_jobset_for_its_queues(shipped: dict[str, Any]) -> None:
    # config/dev.yaml has `queues: {}` (issue #29: teams try the product in dev)
    names = sorted(r["name"] for r in resources(shipped["dev"], RELEASE))
    assert names == ["gke-accel-fences", "gke-accel-queues", "jobset", "kueue"]


def test_without_queues_single_host_and_spread_pools_install_neither_kueue_nor_jobset(
    synth: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    # quota-only: dev's pools without queues: single-host v5e 2x2 slices and a spread (not compact) L4
    # pool, so nothing needs JobSet
    doc = synth(yaml.safe_load(QUOTA_ONLY_CONFIG.read_text()))
    assert not resources(doc, RELEASE) and "helm" not in doc.get("provider", {})


def test_prod_installs_jobset_without_kueue(shipped: dict[str, Any]) -> None:
    """real-engines F4: prod's only TPU pool is a 2-VM v5p 2x2x2 slice, which runs only as a JobSet; without
    the controller the API server answered `no matches for kind "JobSet"`."""
    doc = shipped["prod"]
    [jobset] = resources(doc, RELEASE)
    assert (jobset["name"], jobset["namespace"], jobset["chart"], jobset["version"]) == (
        "jobset",
        "jobset-system",
        "jobset",
        "0.12.0",
    )
    assert jobset["repository"] == "oci://registry.k8s.io/jobset/charts"
    assert jobset["atomic"] is True and jobset["wait"] is True
    assert jobset["depends_on"] == [cluster_address(doc), system_pool_address(doc)]
    # chart keys controller.nodeSelector / controller.tolerations (jobset charts/jobset/values.yaml)
    assert yaml.safe_load(jobset["values"][0]) == {"controller": SYSTEM_PLACEMENT}
    assert "helm" in doc["provider"]


def test_staging_installs_one_jobset_and_both_controllers_on_the_system_pool(shipped: dict[str, Any]) -> None:
    doc = shipped["staging"]
    names = sorted(r["name"] for r in resources(doc, RELEASE))
    # JobSet once, though both Kueue and slices need it; the priority fence (#23) is its own release, and
    # so is the L4 ladder's ComputeClass (docs/capacity.md)
    assert names == ["gke-accel-capacity", "gke-accel-fences", "gke-accel-queues", "jobset", "kueue"]
    jobset = one(doc, RELEASE, name="jobset")
    assert yaml.safe_load(jobset["values"][0]) == {"controller": SYSTEM_PLACEMENT}
    kueue = one(doc, RELEASE, name="kueue")
    values = yaml.safe_load(kueue["values"][0])
    # chart keys controllerManager.nodeSelector / controllerManager.tolerations (kueue charts/kueue/README.md)
    assert values["controllerManager"] == SYSTEM_PLACEMENT
    queues = one(doc, RELEASE, name="gke-accel-queues")
    assert sum(d.startswith("helm_release.") for d in queues["depends_on"]) == 2  # after Kueue and JobSet
