"""Observability: alert policies, notification channels, dashboard, quota preferences and budget
for one environment. What applies is decided in the model (``model/observability/alerts.py``,
``model/observability/dashboard.py``, ``model/observability/quotas.py``); this construct only composes the resources."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk.alerts import NotificationChannels, alert_policy
from gke_accel.cdk.budget import billing_budget
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.dashboard import accelerator_dashboard
from gke_accel.cdk.quota_preferences import QuotaPreferences
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.observability.rules import quota_contact


class Observability(Construct):
    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, cluster: GkeCluster) -> None:
        super().__init__(scope, id)
        spec = plan.spec
        self.cluster = cluster  # the alerts and dashboard filter on its name (plan.cluster.spec.name)
        m = spec.monitoring
        labels = {"environment": spec.environment, "managed-by": "gke-accel"}
        self.channels = NotificationChannels(self, "channels", plan=plan, labels=labels)
        self.alerts = [
            alert_policy(self, alert, project=spec.project_id, channels=self.channels.names, labels=labels)
            for alert in plan.alerts
        ]
        self.dashboard = accelerator_dashboard(self, "dashboard", plan=plan) if m.enabled and m.dashboard else None
        self.quota_preferences = None
        contact = quota_contact(m)
        if spec.quota_preferences and contact:
            self.quota_preferences = QuotaPreferences(self, "quota", plan=plan, contact_email=contact)
        self.budget = (
            billing_budget(self, "budget", plan=plan, channel_ids=self.channels.ids)
            if spec.budget is not None
            else None
        )
