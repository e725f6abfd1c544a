"""Rules for teams, quotas, priority classes and checkpoint storage of an environment."""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.errors import IssueCollector
from gke_accel.model.node_pool import NodePoolPlan
from gke_accel.model.spec import EnvironmentSpec


def check_platform(spec: EnvironmentSpec, pools: Sequence[NodePoolPlan], issues: IssueCollector) -> None:
    """Add an issue for every mistake in teams, priority classes and checkpoints."""
