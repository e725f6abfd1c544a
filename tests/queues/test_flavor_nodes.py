"""Every Kueue ResourceFlavor selects and tolerates the nodes GKE makes for its pool.

Expected values are the hand-written golden nodes in tests/fixtures/gke-nodes (labels and taints from
GKE's pages, cited per line there), not ``node_shape``: a flavor's ``nodeLabels`` must all be labels of
the fixture node (else Kueue injects a selector no node matches and admitted pods stay pending), its
tolerations and nodeTaints together must be exactly the node's taints (a missing one leaves admitted pods
unschedulable; an extra one lets them onto nodes they were fenced off), the split-GPU taint (README source
SPLIT) a nodeTaint, never a toleration (Kueue would add it to whole-GPU pods), and its name must tell the
kinds of node apart."""

from __future__ import annotations

import pytest

from gke_accel.model.queues.flavors import Flavor, plan_flavors
from gke_nodes import GkeNodeFixture, load_fixtures

FIXTURES = load_fixtures()

# The flavor name per fixture, written by hand: accelerator (TPU generation + topology, or GPU model
# without "nvidia-", + MIG size, + sharing strategy and clients) and how the nodes are obtained.
NAMES = {
    "gpu-a100-80gb-whole": "a100-80gb",
    "gpu-h100-queued": "h100-80gb-queued",
    "gpu-h100-reservation": "h100-80gb-reservation",
    "gpu-h100-whole": "h100-80gb",
    "gpu-l4-flex-start": "l4-flex-start",
    "gpu-l4-mps": "l4-mps3",
    "gpu-l4-whole": "l4",
    "gpu-mig-a100-1g10gb": "a100-80gb-mig-1g-10gb",
    "gpu-mig-h100-3g40gb": "h100-80gb-mig-3g-40gb",
    "gpu-t4-time-sharing": "tesla-t4-ts4",
    "tpu-v5e-multi-host-slice": "v5e-4x4",
    "tpu-v5e-single-host": "v5e-2x2",
    "tpu-v5p-single-host": "v5p-2x2x1",
    "tpu-v6e-single-host": "v6e-2x2",
    "tpu-v6e-spot": "v6e-1x1-spot",
}


def _flavor(fixture: GkeNodeFixture) -> Flavor:
    flavors = plan_flavors([fixture.plan()])
    assert len(flavors) == 1
    return flavors[0]


def test_every_fixture_has_a_name() -> None:
    assert set(NAMES) == {f.name for f in FIXTURES}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_the_flavor_selects_and_tolerates_the_gke_node(fixture: GkeNodeFixture) -> None:
    flavor = _flavor(fixture)
    node_labels = fixture.node["metadata"]["labels"]
    selected = dict(flavor.node_labels)
    assert selected, "a flavor without nodeLabels would send jobs to any node"
    assert {k: node_labels.get(k) for k in selected} == selected
    taints = fixture.node["spec"].get("taints") or []
    expected = sorted((t["key"], t["value"], t["effect"]) for t in taints)
    both = (*flavor.tolerations, *flavor.node_taints)
    assert sorted((t.key, t.value, t.effect) for t in both) == expected
    split = sorted(x for x in expected if x[0] == "gke-accel/split-gpu")
    assert sorted((t.key, t.value, t.effect) for t in flavor.node_taints) == split
    assert flavor.name == NAMES[fixture.name]


def test_a_whole_gpu_pool_and_a_mig_pool_of_one_model_get_two_flavors() -> None:
    by_name = {f.name: f for f in FIXTURES}
    pools = [by_name["gpu-a100-80gb-whole"].plan(), by_name["gpu-mig-a100-1g10gb"].plan()]
    assert [f.name for f in plan_flavors(pools)] == ["a100-80gb", "a100-80gb-mig-1g-10gb"]


def test_whole_gpus_and_mig_instances_of_one_model_are_two_units() -> None:
    """Each flavor counts one unit (a team's quota names it), and its nodeLabels hold the node's
    ``gke-accel/gpu-unit``: a pod selecting MIG instances never matches the whole-GPU flavor."""
    by_name = {f.name: f for f in FIXTURES}
    fixtures = [by_name["gpu-a100-80gb-whole"], by_name["gpu-mig-a100-1g10gb"]]
    whole, mig = plan_flavors([f.plan() for f in fixtures])
    assert (whole.accelerator, mig.accelerator) == ("nvidia-a100-80gb", "nvidia-a100-80gb/mig-1g-10gb")
    for flavor, fixture in zip((whole, mig), fixtures, strict=True):
        assert (
            dict(flavor.node_labels)["gke-accel/gpu-unit"] == fixture.node["metadata"]["labels"]["gke-accel/gpu-unit"]
        )
    assert (whole.node_taints, [t.value for t in mig.node_taints]) == ((), ["1g.10gb"])
