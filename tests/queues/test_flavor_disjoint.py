"""No Kueue flavor admits another flavor's nodes (code review R4).

Kueue adds a flavor's ``nodeLabels`` to the nodeSelector and its tolerations to the pods it admits on
that flavor; kube-scheduler then binds the pod to any node whose labels include the selector and whose
NoSchedule/NoExecute taints are all tolerated (Kubernetes "Assigning Pods to Nodes" and "Taints and
Tolerations"; GKE's ExtendedResourceToleration admission adds an Exists toleration for every extended
resource the pod asks for). Evaluated here from those rules, over environments hypothesis generates
from pools of every way of getting nodes: an on-demand flavor must never reach flex-start, Spot,
queued or reservation nodes of the same accelerator, nor they each other's."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gke_accel.model import ConfigError, load_environment_text
from gke_accel.model.pools.node_shape import NodeShape, node_shape
from gke_accel.model.queues.flavors import Flavor, plan_flavors
from helpers import base_config, to_yaml

CONSUMPTIONS: list[Any] = [None, "spot", "flex-start", "queued", {"type": "reservation", "affinity": "any"}]
TPU_SHAPES = [("v5e", "2x2"), ("v6e", "2x2"), ("v6e", "1x1")]
GPU_SHAPES: list[dict[str, Any]] = [
    {"gpu": "l4", "gpus_per_node": 1},
    {"gpu": "l4", "gpus_per_node": 1, "sharing": {"strategy": "mps", "max_shared_clients": 3}},
    {"gpu": "h100", "gpus_per_node": 8},
    {"gpu": "a100-80gb", "gpus_per_node": 1, "partition_size": "1g.10gb"},
]


@st.composite
def environments(draw: st.DrawFn) -> dict[str, Any]:
    data = base_config()
    data["cluster"]["node_zones"] = ["us-central1-a"]
    tpus = draw(st.lists(st.tuples(st.sampled_from(TPU_SHAPES), st.sampled_from(CONSUMPTIONS)), max_size=4))
    gpus = draw(st.lists(st.tuples(st.sampled_from(GPU_SHAPES), st.sampled_from(CONSUMPTIONS)), max_size=4))
    data["tpu_pools"] = [
        {"name": f"t{i}", "generation": gen, "topology": topo, "zone": "us-central1-a", "max_slices": 2,
         **({"consumption": c} if c else {})}
        for i, ((gen, topo), c) in enumerate(tpus)
    ]  # fmt: skip
    data["gpu_pools"] = [
        {"name": f"g{i}", **shape, "zones": ["us-central1-a"], "min_nodes": 0, "max_nodes": 2,
         **({"consumption": c} if c else {})}
        for i, (shape, c) in enumerate(gpus)
    ]  # fmt: skip
    data["queues"] = {}
    return data


def admits(flavor: Flavor, resource: str, node: NodeShape) -> bool:
    """Would a pod admitted on ``flavor`` (asking for ``resource``) be allowed onto ``node``?"""
    labels = node.node_labels("us-central1-a")
    if any(labels.get(k) != v for k, v in flavor.node_labels):
        return False
    # Kueue admits a pod on a flavor with nodeTaints only if the pod tolerates them itself (Kueue v0.19
    # ResourceFlavorSpec.nodeTaints), so an admitted pod tolerates them as well as the flavor's tolerations
    tolerated = {(t.key, t.value, t.effect) for t in (*flavor.tolerations, *flavor.node_taints)}
    for taint in node.taints:
        if taint.effect == "PreferNoSchedule":
            continue
        if taint.key == resource and taint.effect == "NoSchedule":  # ExtendedResourceToleration
            continue
        if (taint.key, taint.value, taint.effect) not in tolerated:
            return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(environments())
def test_no_flavor_admits_another_flavors_nodes(data: dict[str, Any]) -> None:
    try:
        plan = load_environment_text(to_yaml(data), expected_name="test")
    except ConfigError:
        assume(False)
        return
    flavors = plan_flavors(plan.pools)
    by_pool = {pool: f for f in flavors for pool in f.pools}
    for flavor in flavors:
        for pool in plan.pools:
            if by_pool[pool.name] is flavor:
                assert admits(flavor, flavor.resource, node_shape(pool)), f"{flavor.name} misses its pool {pool.name}"
            else:
                other = by_pool[pool.name].name
                assert not admits(flavor, flavor.resource, node_shape(pool)), (
                    f"flavor {flavor.name} admits the nodes of pool {pool.name} (flavor {other})"
                )


def test_on_demand_and_flex_start_of_one_accelerator_are_two_disjoint_flavors() -> None:
    """The case the review measured: l4 on-demand and l4 flex-start pools."""
    data = base_config()
    data["gpu_pools"] = [
        {"name": "l4-od", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2},
        {"name": "l4-flex", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2, "consumption": "flex-start"},
    ]
    plan = load_environment_text(to_yaml(data), expected_name="test")
    flavors = {f.name: f for f in plan_flavors(plan.pools)}
    assert set(flavors) >= {"l4", "l4-flex-start"}
    pools = {p.name: node_shape(p) for p in plan.pools}
    assert not admits(flavors["l4"], "nvidia.com/gpu", pools["l4-flex"])
    assert admits(flavors["l4"], "nvidia.com/gpu", pools["l4-od"])
    assert not admits(flavors["l4-flex-start"], "nvidia.com/gpu", pools["l4-od"])
