"""The environment's ``google_monitoring_dashboard`` (JSON built by ``model/observability/dashboard.py``)."""

from __future__ import annotations

import json

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import MonitoringDashboard
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.observability.dashboard import dashboard_json


def accelerator_dashboard(scope: Construct, id: str, *, plan: EnvironmentPlan) -> MonitoringDashboard:
    return MonitoringDashboard(
        scope, id, project=plan.spec.project_id, dashboard_json=json.dumps(dashboard_json(plan), sort_keys=True)
    )
