"""The Kueue priority fence in the synthesized stacks: a generated Helm chart holding exactly the
model's policy and binding (the kubernetes provider has no resource for the binding, and
``kubernetes_manifest`` would need the cluster's API at plan time), installed after Kueue and JobSet;
none where an environment has no Kueue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import load_environment
from gke_accel.model.platform.fences import priority_fence
from helpers import one, resources

CONFIG = Path(__file__).resolve().parents[2] / "config"


def test_staging_installs_the_fence_chart_after_kueue_and_jobset(shipped: dict[str, Any], shipped_stacks: Path) -> None:
    release = one(shipped["staging"], "helm_release", name="gke-accel-fences")
    chart = shipped_stacks / "staging" / release["chart"]
    text = (chart / "templates" / "fences.yaml").read_text()
    objects = [o for o in yaml.safe_load_all(text) if o]
    assert objects == priority_fence(load_environment(CONFIG / "staging.yaml"))
    assert [o["kind"] for o in objects] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    assert "{{" not in text  # nothing for Helm to template
    assert release["atomic"] is True and release["wait"] is True
    # after Kueue and JobSet, and (R11) the system pool the admission webhooks run on
    resources_ = shipped["staging"]["resource"]
    controllers = [
        f"helm_release.{k}" for k, r in resources_["helm_release"].items() if r["name"] in ("kueue", "jobset")
    ]
    [system] = [
        f"google_container_node_pool.{k}"
        for k, p in resources_["google_container_node_pool"].items()
        if p["name"] == "system"
    ]
    [cluster] = [f"google_container_cluster.{k}" for k in resources_["google_container_cluster"]]
    assert sorted(release["depends_on"]) == sorted([cluster, system, *controllers])
    assert release["provider"] == one(shipped["staging"], "helm_release", name="kueue")["provider"]
    assert "kubernetes_manifest" not in shipped["staging"]["resource"]


def test_an_environment_without_kueue_has_no_fence(shipped: dict[str, Any]) -> None:
    # prod has no `queues:` (dev has, since issue #29: tests/synth/test_queues_json.py)
    assert not [r for r in resources(shipped["prod"], "helm_release") if r["name"] == "gke-accel-fences"]
