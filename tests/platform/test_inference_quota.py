"""Where a team's inference pods get a ResourceQuota of their own (docs/queues.md "ResourceQuota and Kueue";
real-engines W1): with queues, a team that may use inference and another class has ``compute`` scoped to
every class but inference and ``compute-inference`` scoped to inference, both with the same hard ceilings;
every other team keeps one unscoped ``compute``. Expected values are written by hand from the configs:
config/staging.yaml (serving: inference, training; research: training, batch; nlp: every class;
serving's L4 ceiling 5 = its 4 on the ladder's rungs + nlp's 1 it may borrow), config/prod.yaml (no
queues). The server's side of it (pods counted, a Deployment preempting training) is
tests/e2e/test_inference_in_team.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import load_environment, load_environment_text
from gke_accel.model.platform.manifests import platform_manifests

CONFIG = Path(__file__).resolve().parents[2] / "config"
NOT_INFERENCE = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "NotIn", "values": ["inference"]}]}
INFERENCE = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["inference"]}]}


def quotas(plan: Any, namespace: str) -> dict[str, dict[str, Any]]:
    return {m["metadata"]["name"]: m["spec"] for m in platform_manifests(plan)
            if m["kind"] == "ResourceQuota" and m["metadata"]["namespace"] == namespace}  # fmt: skip


def test_a_team_with_inference_and_training_under_kueue_has_two_scoped_quotas() -> None:
    staging = load_environment(str(CONFIG / "staging.yaml"))
    serving = quotas(staging, "serving")
    assert set(serving) == {"compute", "compute-inference", "priority-classes"}
    assert serving["compute"]["scopeSelector"] == NOT_INFERENCE
    assert serving["compute-inference"]["scopeSelector"] == INFERENCE
    assert serving["compute"]["hard"] == serving["compute-inference"]["hard"]
    assert serving["compute-inference"]["hard"]["requests.nvidia.com/gpu"] == "5"
    assert set(quotas(staging, "nlp")) == {"compute", "compute-inference"}  # nlp may use every class


def test_a_team_without_inference_keeps_one_unscoped_quota() -> None:
    staging = load_environment(str(CONFIG / "staging.yaml"))
    research = quotas(staging, "research")
    assert "compute-inference" not in research and "scopeSelector" not in research["compute"]


def test_without_queues_nothing_is_split() -> None:
    prod = load_environment(str(CONFIG / "prod.yaml"))
    for team in prod.spec.teams:
        ns = team.namespace or team.name
        assert "compute-inference" not in quotas(prod, ns) and "scopeSelector" not in quotas(prod, ns)["compute"]


def test_a_team_of_inference_only_keeps_one_unscoped_quota() -> None:
    data = yaml.safe_load((CONFIG / "staging.yaml").read_text())
    [serving] = [t for t in data["teams"] if t["name"] == "serving"]
    serving["priority_classes"] = ["inference"]
    plan = load_environment_text(yaml.safe_dump(data), expected_name="staging")
    spec = quotas(plan, "serving")
    assert "compute-inference" not in spec and "scopeSelector" not in spec["compute"]
