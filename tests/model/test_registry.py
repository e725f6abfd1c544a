"""The capability registry (model/environment/registry.py): every capability's check runs on every
load, all issues reported at once, and each capability's plan lands in EnvironmentPlan."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from gke_accel.catalog import load_catalog
from gke_accel.model import ConfigError, load_environment_text
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.environment import registry
from gke_accel.model.environment.registry import CAPABILITIES, Derived, Planned, plan_all
from gke_accel.model.environment.spec import EnvironmentSpec
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.queues.plan import QueuePlan
from helpers import base_config, set_path, to_yaml


def test_every_capability_is_registered_once() -> None:
    names = [c.name for c in CAPABILITIES]
    assert names == ["platform", "security", "observability", "queues", "storage"]


def test_one_load_reports_every_capability_s_mistakes_at_once() -> None:
    data = set_path(base_config(), "production", True)  # security: a local backend in production
    data = set_path(data, "monitoring", {"disabled_alerts": ["no_such_alert"]})  # observability
    data = set_path(data, "gpu_pools[0].consumption", "queued")  # queues: needs Kueue
    data = set_path(data, "teams", [{"name": "Bad_Name", "google_group": "ml@acme.example.com"}])  # platform
    with pytest.raises(ConfigError) as err:
        load_environment_text(to_yaml(data))
    paths = {i.path for i in err.value.issues}
    assert {"backend.type", "monitoring.disabled_alerts[0]", "gpu_pools[0].consumption", "teams[0].name"} <= paths


def test_the_plans_land_in_the_environment_plan() -> None:
    data = set_path(
        base_config(), "teams", [{"name": "ml", "google_group": "ml@acme.example.com", "accelerators": {"l4": 2}}]
    )
    plan = load_environment_text(to_yaml(set_path(data, "queues", {})))
    assert [t.name for t in plan.teams] == ["ml"]
    assert plan.queues is not None and [t.team for t in plan.queues.teams] == ["ml"]
    queue = plan.teams[0].queue
    assert queue is not None and (queue.local_queue, queue.cluster_queue) == ("team", "ml")
    assert {a.name for a in plan.alerts} >= {"gpu_idle", "tpu_idle"}
    without = load_environment_text(to_yaml(data))
    assert without.queues is None and without.teams[0].queue is None


class _Twice:
    name = "twice"

    def check(
        self, spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector, *, pools_complete: bool
    ) -> tuple[str, ...]:
        return ()

    def plan(self, spec: EnvironmentSpec, derived: Derived) -> Planned:
        return Planned(queues=QueuePlan(cohort="x", flavors=(), teams=()))


def test_two_capabilities_planning_the_same_result_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = load_environment_text(to_yaml(set_path(base_config(), "queues", {})))
    monkeypatch.setattr(registry, "CAPABILITIES", (*CAPABILITIES, _Twice()))
    with pytest.raises(AssertionError, match="queues planned by both queues and twice"):
        plan_all(plan.spec, plan.pools, plan.teams, load_catalog())
