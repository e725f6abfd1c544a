"""One synth plans every part of an environment once: loading the config plans the pools, the
capacity ladders, the queues, the teams, the lifecycle and the alerts; the stack and
``gke-accel manifests`` render those plans and plan nothing again (R9 of the 2026-12-04 review: the
constructs re-planned pools from their specs and the ladders were planned three times).

The counts come from spies around the model's planners, wherever the product imported them.
``GkeCluster`` plans its spec only for an outside composer; the stack hands it the root's ``ClusterPlan``."""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from helpers import to_yaml
from ladder_config import ladder_config

PLANNERS = {  # the model's planning functions, by their defining module
    "plan_cluster": "gke_accel.model.cluster.plan",
    "plan_tpu_pool": "gke_accel.model.pools.tpu_pool",
    "plan_gpu_pool": "gke_accel.model.pools.gpu_pool",
    "plan_ladders": "gke_accel.model.capacity.rules",
    "plan_lifecycle": "gke_accel.model.lifecycle_planner.posture",
    "plan_teams": "gke_accel.model.teams.plan",
    "plan_queues": "gke_accel.model.queues.plan",
    "alerts_for": "gke_accel.model.observability.alerts",
    "quotas_for": "gke_accel.model.observability.quotas",
}


@contextmanager
def spies() -> Iterator[Counter[str]]:
    """Count calls of every planner, replaced in every loaded gke_accel module that holds it."""
    calls: Counter[str] = Counter()
    patched: list[tuple[Any, str, Any]] = []
    for name, module_name in PLANNERS.items():
        original = getattr(importlib.import_module(module_name), name)

        def spy(*args: Any, __name: str = name, __original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            calls[__name] += 1
            return __original(*args, **kwargs)

        for module in [m for k, m in sys.modules.items() if k.startswith("gke_accel") and m is not None]:
            for attr, value in list(vars(module).items()):
                if value is original:
                    patched.append((module, attr, value))
                    setattr(module, attr, spy)
    try:
        yield calls
    finally:
        for module, attr, value in patched:
            setattr(module, attr, value)


def _config() -> dict[str, Any]:
    data = ladder_config()  # five v5e pools on a capacity ladder
    data["gpu_pools"] = [{"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2}]
    data["tpu_pools"].append(
        {"name": "v5e-big", "generation": "v5e", "topology": "4x4", "zone": "us-central1-a", "max_slices": 2}
    )
    data["teams"] = [{"name": "nlp", "google_group": "ml-nlp@acme.example.com", "accelerators": {"v5e": 16, "l4": 1}}]
    data["queues"] = {}
    return data


@pytest.fixture(scope="module")
def environment() -> str:
    from gke_accel.model import load_environment_text

    text = to_yaml(_config())
    plan = load_environment_text(text)
    assert plan.ladders and plan.queues is not None and plan.lifecycle is not None
    assert any(p.name == "v5e-big-s1" for p in plan.pools)  # a multi-host pool: one node pool per slice
    return text


def test_load_synth_and_manifests_plan_each_part_once(environment: str, tmp_path: Any) -> None:
    import gke_accel.stacks.app  # noqa: F401  (the constructs, loaded before the spies look for planners)
    from gke_accel.cli.manifests_view import environment_manifests
    from gke_accel.model import load_environment_text
    from gke_accel.stacks.app import synth_environments

    with spies() as calls:
        plan = load_environment_text(environment)
        synth_environments([plan], tmp_path / "out")
        environment_manifests(plan)
    tpu_specs, gpu_specs = len(plan.spec.tpu_pools), len(plan.spec.gpu_pools)
    assert (tpu_specs, gpu_specs) == (6, 1)
    assert dict(calls) == {
        "plan_cluster": 1,
        "plan_tpu_pool": tpu_specs,  # once per declared pool
        "plan_gpu_pool": gpu_specs,
        "plan_ladders": 1,
        "plan_lifecycle": 1,
        "plan_teams": 1,
        "plan_queues": 1,
        "alerts_for": 1,
        "quotas_for": 1,
    }


def test_the_spies_see_a_construct_that_plans_again(environment: str, tmp_path: Any) -> None:
    """The rejected case: a pool composed from its spec (``TpuSlicePool``) is planned again, and counted."""
    from gke_accel.cdk import App, GkeCluster, TerraformStack, TpuSlicePool
    from gke_accel.model import load_environment_text

    plan = load_environment_text(environment)
    app = App(outdir=str(tmp_path / "out"))
    stack = TerraformStack(app, "composed")
    spec = plan.spec
    cluster = GkeCluster(stack, "cluster", project=spec.project_id, region=spec.region, spec=spec.cluster, labels={})
    with spies() as calls:
        TpuSlicePool(stack, "extra", cluster=cluster, spec=spec.tpu_pools[0], ladders=plan.ladders)
    assert calls["plan_tpu_pool"] == 1
