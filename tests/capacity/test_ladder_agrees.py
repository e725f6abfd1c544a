"""The three outputs of a capacity ladder agree, read from what the stack ships: the node pools in the
synthesized Terraform JSON (their ComputeClass label and taint, GKE's requirement for a manually
created pool, and their rung label), the ComputeClass in the generated capacity chart (its
``priorities[]``), and each team's ClusterQueue in the generated queue chart (its flavors, and through
each flavor's node labels the pools it selects). The expected order is written by hand from
tests/fixtures/capacity/staging-ladder.yaml: reservation r-ml-1 (pool v5e-reserved), on-demand
(v5e-slice), Spot (v5e-spot, two slices: v5e-spot-s0, v5e-spot-s1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import load_environment
from helpers import one, resources

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "capacity" / "staging-ladder.yaml"
EXPECTED = [["v5e-reserved"], ["v5e-slice"], ["v5e-spot-s0", "v5e-spot-s1"]]
CLASS = "v5e-2x4"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    from gke_accel.stacks.app import synth_environments

    plan = load_environment(FIXTURE)
    out = synth_environments([plan], str(tmp_path_factory.mktemp("synth")))
    where = out / "stacks" / plan.name
    return json.loads((where / "cdk.tf.json").read_text()), where


def _chart_objects(doc: dict[str, Any], where: Path, release: str, stem: str) -> list[dict[str, Any]]:
    chart = where / one(doc, "helm_release", name=release)["chart"]
    return [o for o in yaml.safe_load_all((chart / "templates" / f"{stem}.yaml").read_text()) if o]


# Labels GKE adds to the nodes itself (GKE "Plan TPUs in GKE" / "Spot VMs"; catalog-facts section 2):
# the TPU accelerator from the machine type, the topology from the placement policy, gke-spot on Spot.
TPU_ACCELERATOR = {"ct5lp-hightpu-4t": "tpu-v5-lite-podslice"}


def _node_labels(pool: dict[str, Any]) -> dict[str, str]:
    config = pool["node_config"]
    labels = dict(config.get("labels", {}))
    if config.get("spot"):
        labels["cloud.google.com/gke-spot"] = "true"
    if config["machine_type"] in TPU_ACCELERATOR:
        labels["cloud.google.com/gke-tpu-accelerator"] = TPU_ACCELERATOR[config["machine_type"]]
        labels["cloud.google.com/gke-tpu-topology"] = pool["placement_policy"]["tpu_topology"]
    return labels


def _pool_labels(doc: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {p["name"]: _node_labels(p) for p in resources(doc, "google_container_node_pool")}


def test_pools_carry_the_class_label_and_taint_gke_requires(stack: tuple[dict[str, Any], Path]) -> None:
    doc, _ = stack
    for pool in resources(doc, "google_container_node_pool"):
        if pool["name"].startswith("v5e-"):
            assert pool["node_config"]["labels"]["cloud.google.com/compute-class"] == CLASS
            assert {"key": "cloud.google.com/compute-class", "value": CLASS, "effect": "NO_SCHEDULE"} in pool[
                "node_config"
            ]["taint"]
        else:  # not behind a rung: untouched
            assert "cloud.google.com/compute-class" not in pool["node_config"].get("labels", {})


def test_pools_computeclass_and_flavors_give_the_same_order(stack: tuple[dict[str, Any], Path]) -> None:
    doc, where = stack
    labels = _pool_labels(doc)
    # 1. the ComputeClass: one nodepools rule per rung, in order
    [cc] = [o for o in _chart_objects(doc, where, "gke-accel-capacity", "capacity") if o["kind"] == "ComputeClass"]
    assert cc["metadata"]["name"] == CLASS
    from_class = [sorted(rule["nodepools"]) for rule in cc["spec"]["priorities"]]
    # 2. the ClusterQueues: the TPU resource group's flavors, each resolved to the pools its labels select
    queue_objects = _chart_objects(doc, where, "gke-accel-queues", "queues")
    flavors = {o["metadata"]["name"]: o["spec"] for o in queue_objects if o["kind"] == "ResourceFlavor"}
    queues = [o for o in queue_objects if o["kind"] == "ClusterQueue"]
    assert len(queues) == 3
    for cq in queues:
        [group] = [g for g in cq["spec"]["resourceGroups"] if g["coveredResources"] == ["google.com/tpu"]]
        from_flavors = []
        for entry in group["flavors"]:
            selector = flavors[entry["name"]]["nodeLabels"]
            from_flavors.append(sorted(n for n, lab in labels.items() if selector.items() <= lab.items()))
        assert from_flavors == EXPECTED, cq["metadata"]["name"]
        assert cq["spec"]["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
    # 3. the pools: each pool's rung label, in the order of the config's rungs
    rung_of = {name: lab.get("gke-accel/capacity-rung") for name, lab in labels.items()}
    from_pools = [
        sorted(n for n, r in rung_of.items() if r == rung) for rung in ("reservation-r-ml-1", "on-demand", "spot")
    ]
    assert from_class == from_flavors == from_pools == EXPECTED


def test_each_flavor_selects_exactly_one_rung(stack: tuple[dict[str, Any], Path]) -> None:
    doc, where = stack
    labels = _pool_labels(doc)
    flavors = [o for o in _chart_objects(doc, where, "gke-accel-queues", "queues") if o["kind"] == "ResourceFlavor"]
    ladder = [f for f in flavors if f["metadata"]["name"].startswith(f"{CLASS}-")]
    assert len(ladder) == 3
    for f in ladder:
        selected = {
            labels[n].get("gke-accel/capacity-rung")
            for n, lab in labels.items()
            if f["spec"]["nodeLabels"].items() <= lab.items()
        }
        assert len(selected) == 1, f
        assert f["spec"]["nodeLabels"]["cloud.google.com/compute-class"] == CLASS
