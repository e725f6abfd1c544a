"""Notification channels and alert policies of one environment, rendered from
``model/observability/alerts.py`` (which decides what applies, with which filter, severity and channels)."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct, TerraformVariable
from gke_accel.cdk._providers import MonitoringAlertPolicy, MonitoringNotificationChannel, alert_structs
from gke_accel.cdk._providers import MonitoringNotificationChannelSensitiveLabels as SensitiveLabels
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.observability.alerts import AlertCondition, AlertPlan


def escape_template(text: str) -> str:
    """Terraform reads ``${...}`` in any string as an interpolation; alert documentation uses the
    same syntax for its own variables (``${resource.label.pod_name}``), so escape it as ``$${``."""
    return text.replace("${", "$${")


class NotificationChannels(Construct):
    """One ``google_monitoring_notification_channel`` per configured channel; ``names[name]`` is
    the channel's resource name for alert policies, ``ids[name]`` its ID for budgets.

    A PagerDuty key or a webhook URL with its token is never in config: it comes from a sensitive
    Terraform variable declared here (``service_key_variable``, ``url_variable``), set at apply time
    with ``TF_VAR_<name>``.
    """

    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, labels: dict[str, str]) -> None:
        super().__init__(scope, id)
        self.names: dict[str, str] = {}
        self.ids: dict[str, str] = {}
        for ch in plan.spec.monitoring.notification_channels:
            channel_labels: dict[str, str] = {}
            sensitive = None
            if ch.type == "email":
                kind = "email"
                channel_labels["email_address"] = ch.address or ""
            elif ch.type == "pagerduty":
                kind = "pagerduty"
                var = ch.service_key_variable or ""
                key = TerraformVariable(
                    self,
                    f"{ch.name}-service-key",
                    type="string",
                    sensitive=True,
                    description=f"PagerDuty integration key for channel {ch.name} (set TF_VAR_{var})",
                )
                key.override_logical_id(var)  # the name users set with TF_VAR_<name>
                sensitive = SensitiveLabels(service_key=key.string_value)
            else:
                kind = "webhook_tokenauth"
                if ch.url_variable:  # the URL carries the channel's token: never in config or cdk.tf.json
                    url = TerraformVariable(
                        self,
                        f"{ch.name}-url",
                        type="string",
                        sensitive=True,
                        description=f"Webhook URL with its token, channel {ch.name} (set TF_VAR_{ch.url_variable})",
                    )
                    url.override_logical_id(ch.url_variable)
                    channel_labels["url"] = url.string_value
                else:
                    channel_labels["url"] = ch.url or ""
            resource = MonitoringNotificationChannel(
                self,
                ch.name,
                project=plan.spec.project_id,
                display_name=f"gke-accel {plan.name} {ch.name}",
                type=kind,
                labels=channel_labels,
                sensitive_labels=sensitive,
                user_labels=labels,
                enabled=True,
            )
            self.names[ch.name] = resource.name
            self.ids[ch.name] = resource.id


def _condition(c: AlertCondition) -> alert_structs.MonitoringAlertPolicyConditions:
    s = alert_structs
    if c.threshold is not None:
        t = c.threshold
        aggregation = [
            s.MonitoringAlertPolicyConditionsConditionThresholdAggregations(
                alignment_period=t.alignment_period,
                per_series_aligner=t.per_series_aligner,
                cross_series_reducer=t.cross_series_reducer,
            )
        ]
        denominator = None
        if t.denominator_filter is not None:
            denominator = [
                s.MonitoringAlertPolicyConditionsConditionThresholdDenominatorAggregations(
                    alignment_period=t.alignment_period,
                    per_series_aligner=t.per_series_aligner,
                    cross_series_reducer=t.cross_series_reducer,
                )
            ]
        return s.MonitoringAlertPolicyConditions(
            display_name=c.display_name,
            condition_threshold=s.MonitoringAlertPolicyConditionsConditionThreshold(
                filter=t.filter,
                comparison=t.comparison,
                threshold_value=t.threshold_value,
                duration=t.duration,
                aggregations=aggregation,
                denominator_filter=t.denominator_filter,
                denominator_aggregations=denominator,
                evaluation_missing_data=t.evaluation_missing_data,
                trigger=s.MonitoringAlertPolicyConditionsConditionThresholdTrigger(count=1),
            ),
        )
    if c.promql is not None:
        return s.MonitoringAlertPolicyConditions(
            display_name=c.display_name,
            condition_prometheus_query_language=s.MonitoringAlertPolicyConditionsConditionPrometheusQueryLanguage(
                query=c.promql.query, duration=c.promql.duration, evaluation_interval=c.promql.evaluation_interval
            ),
        )
    assert c.matched_log is not None
    return s.MonitoringAlertPolicyConditions(
        display_name=c.display_name,
        condition_matched_log=s.MonitoringAlertPolicyConditionsConditionMatchedLog(
            filter=c.matched_log.filter, label_extractors=dict(c.matched_log.label_extractors) or None
        ),
    )


def alert_policy(
    scope: Construct, alert: AlertPlan, *, project: str, channels: dict[str, str], labels: dict[str, str]
) -> MonitoringAlertPolicy:
    s = alert_structs
    strategy = s.MonitoringAlertPolicyAlertStrategy(
        auto_close=alert.auto_close,
        notification_rate_limit=(
            s.MonitoringAlertPolicyAlertStrategyNotificationRateLimit(period=alert.rate_limit)
            if alert.rate_limit
            else None
        ),
    )
    return MonitoringAlertPolicy(
        scope,
        alert.name.replace("_", "-"),
        project=project,
        display_name=alert.display_name,
        combiner=alert.combiner,
        severity=alert.severity,
        conditions=[_condition(c) for c in alert.conditions],
        notification_channels=[channels[n] for n in alert.channels] or None,
        alert_strategy=strategy,
        documentation=s.MonitoringAlertPolicyDocumentation(
            content=escape_template(alert.documentation),
            mime_type="text/markdown",
            subject=escape_template(alert.subject),
        ),
        user_labels={**labels, "alert": alert.name.replace("_", "-")},
        enabled=True,
    )
