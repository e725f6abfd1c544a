"""What the stacks install with Helm, rendered by Helm (``helm template``, no cluster): the Kueue and
JobSet controllers run on the system pool and nowhere else, and the generated queue chart renders to
the queue objects unchanged.

Expected placement, written out from GKE's facts rather than taken from the code: GKE labels every
node with its pool's name, ``cloud.google.com/gke-nodepool`` ("GKE automatically assigns ... the
cloud.google.com/gke-nodepool label", https://cloud.google.com/kubernetes-engine/docs/how-to/node-pools),
the shipped configs name the pool ``system``, and it carries the taint gke-accel gives it
(docs/platform.md, model/cluster/spec.py): ``components.gke.io/gke-managed-components=true:NoSchedule``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from charts import JOBSET, KUEUE, chart_source, pod_specs, releases, render, render_release

SYSTEM_SELECTOR = {"cloud.google.com/gke-nodepool": "system"}
SYSTEM_TOLERATIONS = [
    {"key": "components.gke.io/gke-managed-components", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
]
QUEUE_KINDS = {"Topology", "ResourceFlavor", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass"}  # docs/queues.md
CONTROLLERS = {"kueue": "kueue-controller-manager", "jobset": "jobset-controller"}  # Deployment names


def stacks_with_helm(shipped: dict[str, Any]) -> list[str]:
    return [env for env, doc in shipped.items() if releases(doc)]


def test_some_environment_installs_kueue_and_jobset(shipped: dict[str, Any]) -> None:
    assert "staging" in stacks_with_helm(shipped)
    assert {"kueue", "jobset", "gke-accel-queues"} <= set(releases(shipped["staging"]))


@pytest.mark.parametrize("release", sorted(CONTROLLERS))
def test_the_controllers_run_on_the_system_pool_and_nowhere_else(
    release: str, shipped: dict[str, Any], shipped_stacks: Path
) -> None:
    # not every stack installs both: JobSet comes with multi-host TPU slices even without queues (prod)
    installing = [env for env in stacks_with_helm(shipped) if release in releases(shipped[env])]
    assert "staging" in installing, installing
    for env in installing:
        specs = pod_specs(render_release(shipped[env], shipped_stacks / env, release))
        assert list(specs) == [CONTROLLERS[release]], f"{env}: {release} renders Deployments {list(specs)}"
        spec = specs[CONTROLLERS[release]]
        assert spec["nodeSelector"] == SYSTEM_SELECTOR, env
        assert spec["tolerations"] == SYSTEM_TOLERATIONS, env  # tolerates the system pool's taint, no other
        assert "affinity" not in spec or "nodeAffinity" not in spec["affinity"], env


@pytest.mark.parametrize("release", [KUEUE, JOBSET], ids=lambda r: r.name)
def test_the_charts_defaults_place_the_controller_nowhere(release: Any) -> None:
    """Without our values the chart's Deployment has no selector and no toleration: on GKE, where
    every pool of ours is tainted, it would stay Pending. (The rejected case of the test above.)"""
    objects = render(chart_source(release), release.name, release.namespace)
    [spec] = pod_specs(objects).values()
    assert "nodeSelector" not in spec and "tolerations" not in spec


def test_the_queue_chart_renders_to_its_objects_unchanged(shipped: dict[str, Any], shipped_stacks: Path) -> None:
    doc = shipped["staging"]
    chart = shipped_stacks / "staging" / releases(doc)["gke-accel-queues"]["chart"]
    written = [o for o in yaml.safe_load_all((chart / "templates" / "queues.yaml").read_text()) if o]
    rendered = render_release(doc, shipped_stacks / "staging", "gke-accel-queues")
    def key(o: dict[str, Any]) -> tuple[str, str, str]:
        return o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]

    assert sorted(rendered, key=key) == sorted(written, key=key)  # Helm orders by kind, changes nothing
    assert {o["kind"] for o in rendered} == QUEUE_KINDS  # the queue chart runs nothing
