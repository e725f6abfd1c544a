"""Which alerts an environment gets, and their conditions, without provider bindings."""

from __future__ import annotations

from typing import Any

import pytest

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.observability.alerts import ALERT_NAMES, AlertPlan, plan_alerts
from gke_accel.model.observability.dashboard import dashboard_json
from helpers import base_config, set_path, to_yaml

CHANNELS = [{"name": "oncall", "type": "email", "address": "oncall@example.com"}]


def plan_of(data: dict[str, Any]) -> EnvironmentPlan:
    return load_environment_text(to_yaml(data))


def alerts_of(data: dict[str, Any]) -> dict[str, AlertPlan]:
    return {a.name: a for a in plan_alerts(plan_of(data))}


def test_base_environment_gets_gpu_tpu_memory_node_and_unschedulable_alerts() -> None:
    assert set(alerts_of(base_config())) == {
        "gpu_idle",
        "tpu_idle",
        "accelerator_memory_full",
        "nodes_not_ready",
        "accelerator_unschedulable",
        "upcoming_maintenance",  # every environment with accelerator pools (docs/lifecycle.md)
    }


def test_no_tpu_alerts_without_tpu_pools_and_no_gpu_alerts_without_gpu_pools() -> None:
    gpu_only = alerts_of(set_path(base_config(), "tpu_pools", []))
    assert "tpu_idle" not in gpu_only and "gpu_idle" in gpu_only
    assert gpu_only["accelerator_unschedulable"].conditions[0].matched_log is not None
    assert (
        'jsonPayload.message=~"Insufficient nvidia.com/gpu"'
        in gpu_only["accelerator_unschedulable"].conditions[0].matched_log.filter
    )
    tpu_only = alerts_of(set_path(base_config(), "gpu_pools", []))
    assert "gpu_idle" not in tpu_only and "tpu_idle" in tpu_only
    assert "gpu_driver_installer" not in tpu_only


def test_no_accelerator_alerts_without_accelerator_pools() -> None:
    data = set_path(set_path(base_config(), "gpu_pools", []), "tpu_pools", [])
    assert alerts_of(data) == {}


def test_preemption_alert_only_with_spot_pools() -> None:
    assert "spot_preemptions" not in alerts_of(base_config())
    spot = alerts_of(set_path(base_config(), "gpu_pools[0].consumption", "spot"))
    log = spot["spot_preemptions"].conditions[0].matched_log
    assert log is not None
    assert log.filter == (
        'resource.type="gce_instance" AND protoPayload.methodName="compute.instances.preempted" '
        'AND protoPayload.resourceName=~"gke-ml-test-"'
    )


def test_driver_installer_alert_only_with_a_daemonset_driver_pool() -> None:
    assert "gpu_driver_installer" not in alerts_of(base_config())
    alerts = alerts_of(set_path(base_config(), "gpu_pools[0].driver_mode", "daemonset"))
    log = alerts["gpu_driver_installer"].conditions[0].matched_log
    assert log is not None
    assert 'resource.labels.namespace_name="kube-system"' in log.filter
    assert 'resource.labels.pod_name=~"^nvidia-driver-installer-"' in log.filter
    assert "k8s-app: nvidia-driver-installer" in alerts["gpu_driver_installer"].documentation


@pytest.mark.parametrize("spot", [False, True])
def test_log_match_policies_have_one_condition_and_a_rate_limit_others_none(spot: bool) -> None:
    data = set_path(base_config(), "gpu_pools[0].driver_mode", "daemonset")
    if spot:
        data = set_path(data, "tpu_pools[0].consumption", "spot")
    for alert in alerts_of(data).values():
        if alert.log_based:
            assert len(alert.conditions) == 1, alert.name
            assert alert.rate_limit == "3600s"
        else:
            assert alert.rate_limit is None, alert.name
            for c in alert.conditions:
                assert c.matched_log is None
                assert (c.threshold is None) != (c.promql is None)


def test_thresholds_severity_routes_and_disabling_come_from_config() -> None:
    data = set_path(
        base_config(),
        "monitoring",
        {
            "notification_channels": [*CHANNELS, {"name": "pager", "type": "pagerduty", "service_key_variable": "pd"}],
            "alert_channels": ["oncall"],
            "routes": {"nodes_not_ready": ["oncall", "pager"]},
            "severity": {"gpu_idle": "ERROR"},
            "disabled_alerts": ["tpu_idle"],
            "thresholds": {"gpu_idle_percent": 7.5, "gpu_idle_duration_seconds": 7200, "memory_full_percent": 90},
        },
    )
    alerts = alerts_of(data)
    assert "tpu_idle" not in alerts
    idle = alerts["gpu_idle"]
    assert idle.severity == "ERROR" and idle.channels == ("oncall",)
    assert idle.conditions[0].threshold is not None
    assert idle.conditions[0].threshold.threshold_value == 7.5
    assert idle.conditions[0].threshold.duration == "7200s"
    assert alerts["nodes_not_ready"].channels == ("oncall", "pager")
    assert alerts["nodes_not_ready"].severity == "ERROR"  # the default
    memory = alerts["accelerator_memory_full"].conditions[0].threshold
    assert memory is not None and memory.threshold_value == 0.9


def test_monitoring_disabled_means_no_alerts() -> None:
    assert alerts_of(set_path(base_config(), "monitoring", {"enabled": False})) == {}


def test_every_alert_has_actionable_documentation() -> None:
    data = set_path(base_config(), "gpu_pools[0].driver_mode", "daemonset")
    data = set_path(data, "gpu_pools[0].consumption", "spot")
    alerts = alerts_of(data)
    assert set(alerts) == set(ALERT_NAMES)
    for alert in alerts.values():
        assert "## What it means" in alert.documentation and "## What to check first" in alert.documentation
        assert "gcloud container clusters get-credentials ml-test" in alert.documentation
        assert len(alert.documentation) <= 8192
        assert alert.severity in ("CRITICAL", "ERROR", "WARNING")


def test_dashboard_has_only_the_widgets_that_apply() -> None:
    full = dashboard_json(plan_of(set_path(base_config(), "gpu_pools[0].consumption", "spot")))
    titles = [w["title"] for w in full["gridLayout"]["widgets"]]
    assert titles == [
        "GPU duty cycle (%) by model",
        "TPU TensorCore utilization (%) by model",
        "Accelerator memory used / total by model",
        "Nodes per pool (managed instance groups: gke-<cluster>-<pool>-...)",
        "Spot preemptions",
        "Pods unschedulable for lack of accelerators",
    ]
    gpu_only = dashboard_json(plan_of(set_path(base_config(), "tpu_pools", [])))
    assert "TPU TensorCore utilization (%) by model" not in [w["title"] for w in gpu_only["gridLayout"]["widgets"]]
