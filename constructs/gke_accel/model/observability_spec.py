"""Config shapes for monitoring, alerting, quota preferences and budgets (owned by the
observability work; see model/observability.py for the rules)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MonitoringSpec:
    """Alert policies, notification channels and the dashboard of one environment."""

    enabled: bool = True


@dataclass(frozen=True)
class BudgetSpec:
    """A billing budget for the environment."""

    amount_usd: int = 0
