"""The upcoming-maintenance alert (model/observability/alerts_maintenance.py) as synthesized JSON.

The filter follows GKE's "Cluster notifications" page: notifications are written to Cloud Logging on the
cluster resource (``gke_cluster``) in the ``container.googleapis.com/notifications`` log; upgrade
notifications are UpgradeInfoEvent and UpgradeEvent. A log-match condition is the only condition of its
policy and needs a notification rate limit (Monitoring AlertPolicy schema)."""

from __future__ import annotations

from typing import Any

from lifecycle_configs import production_roles

from helpers import resources, set_path

POLICY = "google_monitoring_alert_policy"


def _policy(doc: dict[str, Any]) -> dict[str, Any]:
    [policy] = [p for p in resources(doc, POLICY) if "Upgrade scheduled or started" in p["display_name"]]
    return policy


def test_upgrade_notifications_alert_with_a_checkpoint_runbook(synth: Any) -> None:
    policy = _policy(synth(production_roles()))
    [condition] = policy["conditions"]
    assert condition["condition_matched_log"]["filter"] == (
        'resource.type="gke_cluster" AND resource.labels.cluster_name="ml-test" '
        'AND logName="projects/acme-ml-test/logs/container.googleapis.com%2Fnotifications" '
        'AND jsonPayload."@type"=~"(UpgradeInfoEvent|UpgradeEvent)$"'
    )
    assert policy["alert_strategy"]["notification_rate_limit"]["period"].endswith("s")
    runbook = policy["documentation"]["content"]
    assert "drain training to a checkpoint" in runbook and "--resume latest" in runbook
    assert "Training pools: `train`." in runbook
    assert "cloud.google.com/scheduled-maintenance-time" in runbook


def test_no_maintenance_alert_without_accelerator_pools(synth: Any) -> None:
    data = set_path(set_path(production_roles(), "tpu_pools", []), "gpu_pools", [])
    data["teams"] = []
    doc = synth(data)
    assert not [p for p in resources(doc, POLICY) if "Upgrade scheduled" in p["display_name"]]
