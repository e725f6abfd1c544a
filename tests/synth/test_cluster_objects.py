"""One list of in-cluster objects (``model.environment.objects.cluster_objects``): the stack installs
exactly its groups (the platform's objects as kubernetes resources, the fence, the ComputeClasses and
the Kueue objects as generated charts), and ``gke-accel manifests`` writes exactly its objects. A
ComputeClass deleted from the cluster is then a verify failure (tests/workloads/test_verify_kinds.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from helpers import to_yaml
from ladder_config import ladder_config


def _config() -> dict[str, Any]:
    data = ladder_config()  # one ladder: the v5e-2x4 ComputeClass
    data["teams"] = [{"name": "nlp", "google_group": "ml-nlp@acme.example.com", "accelerators": {"v5e": 16}}]
    data["queues"] = {}
    return data


def _chart(stacks: Path, env: str, stem: str) -> list[dict[str, Any]]:
    [template] = stacks.glob(f"{env}/assets/{stem}_*/*/templates/{stem}.yaml")
    return [o for o in yaml.safe_load_all(template.read_text()) if o is not None]


def test_the_stack_installs_every_group_of_cluster_objects(tmp_path: Path) -> None:
    from gke_accel.cli.manifests_view import environment_manifests
    from gke_accel.model import load_environment_text
    from gke_accel.model.environment.objects import cluster_objects
    from gke_accel.stacks.app import build_app
    from gke_accel.stacks.environment_stack import EnvironmentStack

    plan = load_environment_text(to_yaml(_config()))
    objects = cluster_objects(plan)
    assert [m["metadata"]["name"] for m in objects.compute_classes] == ["v5e-2x4"]
    assert objects.fence and objects.queues and objects.platform
    app = build_app([plan], str(tmp_path / "out"))
    [stack] = [c for c in app.node.children if isinstance(c, EnvironmentStack)]
    assert stack.platform.manifests == list(objects.platform)
    assert stack.fences is not None and stack.fences.manifests == list(objects.fence)
    assert stack.compute_classes is not None and stack.compute_classes.manifests == list(objects.compute_classes)
    app.synth()
    stacks = tmp_path / "out" / "stacks"
    assert _chart(stacks, plan.name, "queues") == list(objects.queues)
    assert _chart(stacks, plan.name, "fences") == list(objects.fence)
    assert _chart(stacks, plan.name, "capacity") == list(objects.compute_classes)
    # gke-accel manifests: the same objects, in apply order
    written = environment_manifests(plan)
    key = lambda m: (m["kind"], m["metadata"].get("namespace", ""), m["metadata"]["name"])  # noqa: E731
    assert sorted(map(key, written)) == sorted(map(key, objects.all()))
    assert len(written) == len(objects.all())
