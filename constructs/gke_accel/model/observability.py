"""Rules for the monitoring, quota-preference and budget config of an environment."""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.errors import IssueCollector
from gke_accel.model.node_pool import NodePoolPlan
from gke_accel.model.spec import EnvironmentSpec


def check_observability(spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector) -> None:
    """Add an issue for every mistake in ``spec.monitoring``, ``spec.budget`` and quota preferences."""
