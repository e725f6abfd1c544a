"""Kueue, JobSet and the queue objects in the synthesized stacks: Helm releases (nothing that needs
the cluster's API at plan time), pinned charts, and a generated chart holding exactly the queue
objects of the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import load_environment
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from helpers import one, resources

CONFIG = Path(__file__).resolve().parents[2] / "config"
RELEASE = "helm_release"


def test_kueue_and_jobset_are_pinned_official_charts(shipped: dict[str, Any]) -> None:
    doc = shipped["staging"]
    kueue = one(doc, RELEASE, name="kueue")
    assert (kueue["repository"], kueue["chart"], kueue["version"]) == (
        "oci://registry.k8s.io/kueue/charts",
        "kueue",
        "0.17.0",
    )
    jobset = one(doc, RELEASE, name="jobset")
    assert (jobset["repository"], jobset["chart"], jobset["version"]) == (
        "oci://registry.k8s.io/jobset/charts",
        "jobset",
        "0.11.1",
    )
    for release in (kueue, jobset):
        assert release["atomic"] is True and release["wait"] is True
        assert [d.split(".")[0] for d in release["depends_on"]] == ["google_container_cluster"]
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


def test_helm_provider_uses_the_cluster_endpoint_ca_and_the_gke_auth_plugin(shipped: dict[str, Any]) -> None:
    [provider] = shipped["staging"]["provider"]["helm"]
    k8s = provider["kubernetes"]
    assert k8s["host"].startswith("https://${google_container_cluster.")
    assert "base64decode" in k8s["cluster_ca_certificate"] and "token" not in k8s
    assert k8s["exec"] == {"api_version": "client.authentication.k8s.io/v1beta1", "command": "gke-gcloud-auth-plugin"}


def test_environments_without_queues_have_no_helm(shipped: dict[str, Any]) -> None:
    for env in ("dev", "prod"):
        assert not resources(shipped[env], RELEASE) and "helm" not in shipped[env].get("provider", {})
