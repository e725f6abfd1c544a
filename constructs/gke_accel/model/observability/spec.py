"""Config shapes for monitoring, alerting, quota preferences and budgets (owned by the
observability work; see model/observability/rules.py for the rules).

Example (``config/prod.yaml``)::

    monitoring:
      notification_channels:
        - {name: oncall, type: email, address: ml-oncall@acme.example.com}
        - {name: pager, type: pagerduty, service_key_variable: pagerduty_service_key}
      alert_channels: [oncall]            # every alert goes here ...
      routes: {nodes_not_ready: [oncall, pager]}   # ... unless routed explicitly
      thresholds: {gpu_idle_percent: 5, gpu_idle_duration_seconds: 3600}
      severity: {spot_preemptions: ERROR}
    quota_preferences: true
    budget:
      billing_account: 000000-000000-000000
      amount_usd: 250000
      thresholds_percent: [50, 90, 100]

Secrets never live in config: a PagerDuty service key and a webhook URL with its token are read from
sensitive Terraform variables (``service_key_variable``, ``url_variable``), set at apply time with
``TF_VAR_<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["CRITICAL", "ERROR", "WARNING"]
ChannelType = Literal["email", "pagerduty", "webhook"]
SpendBasis = Literal["CURRENT_SPEND", "FORECASTED_SPEND"]


@dataclass(frozen=True)
class NotificationChannelSpec:
    """Where alerts go. ``email`` needs ``address``; ``pagerduty`` needs ``service_key_variable``
    (the name of a sensitive Terraform variable holding the PagerDuty integration key);
    ``webhook`` (a ``webhook_tokenauth`` channel) needs ``url_variable`` (a sensitive Terraform variable
    holding the URL with its token) or, for a URL that carries no credential, ``url``."""

    name: str
    type: ChannelType
    address: str | None = None
    service_key_variable: str | None = None
    url: str | None = None
    url_variable: str | None = None


@dataclass(frozen=True)
class AlertThresholds:
    """Thresholds and windows; every duration is whole seconds (rendered as ``"3600s"``)."""

    gpu_idle_percent: float = 5.0
    gpu_idle_duration_seconds: int = 3600
    tpu_idle_percent: float = 5.0
    tpu_idle_duration_seconds: int = 3600
    memory_full_percent: float = 95.0
    memory_full_duration_seconds: int = 600
    not_ready_duration_seconds: int = 600
    # Log-match policies: at most one notification per this period (required by the API).
    log_alert_rate_limit_seconds: int = 3600
    # Open incidents close after this long without data.
    auto_close_seconds: int = 604800


@dataclass(frozen=True)
class MonitoringSpec:
    """Alert policies, notification channels and the dashboard of one environment.

    Alert names (for ``severity``, ``routes`` and ``disabled_alerts``): ``gpu_idle``,
    ``tpu_idle``, ``accelerator_memory_full``, ``spot_preemptions``, ``nodes_not_ready``,
    ``accelerator_unschedulable``, ``gpu_driver_installer``.
    """

    enabled: bool = True
    dashboard: bool = True
    notification_channels: tuple[NotificationChannelSpec, ...] = ()
    alert_channels: tuple[str, ...] = ()
    routes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    severity: dict[str, Severity] = field(default_factory=dict)
    disabled_alerts: tuple[str, ...] = ()
    thresholds: AlertThresholds = field(default_factory=AlertThresholds)
    # Contact for quota preferences (the API needs one for increases); default: the first
    # email channel's address.
    quota_contact: str | None = None


@dataclass(frozen=True)
class BudgetSpec:
    """A billing budget for the environment, filtered to its project (or to one label pair),
    notifying ``channels`` (default: ``monitoring.alert_channels``)."""

    amount_usd: int = 0
    billing_account: str | None = None
    thresholds_percent: tuple[float, ...] = (50.0, 90.0, 100.0)
    forecast_percent: float | None = 100.0
    channels: tuple[str, ...] = ()
    label: dict[str, str] = field(default_factory=dict)
