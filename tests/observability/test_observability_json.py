"""Alert policies, channels, dashboard, quota preferences and budget in the synthesized Terraform JSON.

Filters and metric types are compared with the reference (../shared/reference/monitoring-quotas.md)
verbatim; schema rules (MM AlertPolicy.yaml): a log-match condition is alone in its policy and
the policy has a notification rate limit; threshold conditions have comparison and duration.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers import base_config, one, resources, set_path

POLICY = "google_monitoring_alert_policy"
CHANNEL = "google_monitoring_notification_channel"
QUOTA = "google_cloud_quotas_quota_preference"
BUDGET = "google_billing_budget"
DASHBOARD = "google_monitoring_dashboard"
ENVS = ("dev", "staging", "prod")


def policy(doc: dict[str, Any], alert: str) -> dict[str, Any]:
    return one(doc, POLICY, user_labels={**policy_labels(doc), "alert": alert})


def policy_labels(doc: dict[str, Any]) -> dict[str, str]:
    first = resources(doc, POLICY)[0]["user_labels"]
    return {"environment": first["environment"], "managed-by": "gke-accel"}


def alerts(doc: dict[str, Any]) -> set[str]:
    return {p["user_labels"]["alert"] for p in resources(doc, POLICY)}


def condition(doc: dict[str, Any], alert: str) -> dict[str, Any]:
    [cond] = policy(doc, alert)["conditions"]
    return cond


@pytest.mark.parametrize("env", ENVS)
def test_every_policy_has_required_fields_and_respects_log_match_rules(shipped: dict[str, Any], env: str) -> None:
    for p in resources(shipped[env], POLICY):
        assert p["display_name"] and p["combiner"] == "OR"
        assert p["severity"] in ("CRITICAL", "ERROR", "WARNING")
        assert p["documentation"]["mime_type"] == "text/markdown"
        assert "## What to check first" in p["documentation"]["content"]
        assert 1 <= len(p["conditions"]) <= 6
        assert p["notification_channels"], p["display_name"]
        kinds = [k for c in p["conditions"] for k in c if k.startswith("condition_")]
        assert len(kinds) == len(p["conditions"])  # exactly one condition block each
        if "condition_matched_log" in kinds:
            assert len(p["conditions"]) == 1, "a log-match condition must be the only condition"
            assert p["alert_strategy"]["notification_rate_limit"]["period"].endswith("s")
        else:
            assert "notification_rate_limit" not in p["alert_strategy"]
        for c in p["conditions"]:
            t = c.get("condition_threshold")
            if t is not None:
                assert t["comparison"] in ("COMPARISON_LT", "COMPARISON_GT") and t["duration"].endswith("s")
                assert int(t["duration"][:-1]) % 60 == 0
                assert all(int(a["alignment_period"][:-1]) >= 60 for a in t["aggregations"])
            q = c.get("condition_prometheus_query_language")
            if q is not None:
                assert int(q["evaluation_interval"][:-1]) % 30 == 0


def test_dev_alerts_match_its_pools(shipped: dict[str, Any]) -> None:
    # dev: Spot v5e + Spot L4, no DaemonSet driver
    assert alerts(shipped["dev"]) == {
        "gpu-idle",
        "tpu-idle",
        "accelerator-memory-full",
        "spot-preemptions",
        "nodes-not-ready",
        "accelerator-unschedulable",
        "upcoming-maintenance",
    }


def test_prod_has_no_preemption_alert_without_spot_pools(shipped: dict[str, Any]) -> None:
    assert "spot-preemptions" not in alerts(shipped["prod"])


def test_stagings_spot_rung_brings_the_preemption_alert(shipped: dict[str, Any]) -> None:
    # config/staging.yaml: l4-spot, the last rung of its L4 ladder, is its one Spot pool
    assert "spot-preemptions" in alerts(shipped["staging"])


def test_gpu_idle_filter_is_the_reference_duty_cycle_filter(shipped: dict[str, Any]) -> None:
    t = condition(shipped["dev"], "gpu-idle")["condition_threshold"]
    assert t["filter"] == (
        'resource.type="k8s_container" AND metric.type="kubernetes.io/container/accelerator/duty_cycle" '
        'AND metric.label."make"!="cloud-tpu" AND resource.labels.cluster_name="ml-dev"'
    )
    assert (t["comparison"], t["threshold_value"], t["duration"]) == ("COMPARISON_LT", 2, "7200s")  # dev config
    assert t["aggregations"] == [
        {"alignment_period": "300s", "per_series_aligner": "ALIGN_MEAN", "cross_series_reducer": "REDUCE_NONE"}
    ]


def test_tpu_idle_uses_tensorcore_utilization(shipped: dict[str, Any]) -> None:
    t = condition(shipped["prod"], "tpu-idle")["condition_threshold"]
    assert t["filter"] == (
        'resource.type="k8s_container" AND metric.type="kubernetes.io/container/accelerator/tensorcore_utilization" '
        'AND resource.labels.cluster_name="ml-prod"'
    )
    assert (t["threshold_value"], t["duration"]) == (5, "3600s")  # defaults


def test_memory_alert_is_used_over_total(shipped: dict[str, Any]) -> None:
    t = condition(shipped["prod"], "accelerator-memory-full")["condition_threshold"]
    assert 'metric.type="kubernetes.io/container/accelerator/memory_used"' in t["filter"]
    assert 'metric.type="kubernetes.io/container/accelerator/memory_total"' in t["denominator_filter"]
    assert (t["comparison"], t["threshold_value"]) == ("COMPARISON_GT", 0.95)
    assert t["denominator_aggregations"] == t["aggregations"]


def test_preemption_is_the_reference_audit_log_filter(shipped: dict[str, Any]) -> None:
    p = policy(shipped["dev"], "spot-preemptions")
    log = p["conditions"][0]["condition_matched_log"]
    assert log["filter"] == (
        'resource.type="gce_instance" AND protoPayload.methodName="compute.instances.preempted" '
        'AND protoPayload.resourceName=~"gke-ml-dev-"'
    )
    assert p["alert_strategy"] == {"auto_close": "604800s", "notification_rate_limit": {"period": "21600s"}}


def test_unschedulable_is_the_reference_failedscheduling_filter(shipped: dict[str, Any]) -> None:
    log = condition(shipped["prod"], "accelerator-unschedulable")["condition_matched_log"]
    assert log["filter"] == (
        'resource.type="k8s_pod" AND resource.labels.cluster_name="ml-prod" '
        'AND jsonPayload.reason="FailedScheduling" '
        'AND jsonPayload.message=~"Insufficient (nvidia.com/gpu|google.com/tpu)"'
    )


def test_not_ready_is_node_status_condition_promql(shipped: dict[str, Any]) -> None:
    p = policy(shipped["prod"], "nodes-not-ready")
    q = p["conditions"][0]["condition_prometheus_query_language"]
    assert "kubernetes_io:node_status_condition{" in q["query"]
    assert 'monitored_resource="k8s_node"' in q["query"] and 'condition="Ready"' in q["query"]
    assert 'cluster_name="ml-prod"' in q["query"]
    assert (q["duration"], q["evaluation_interval"]) == ("600s", "60s")
    assert p["severity"] == "CRITICAL"  # prod override
    assert len(p["notification_channels"]) == 2  # routed to oncall + pager


def test_template_variables_are_escaped_for_terraform(shipped: dict[str, Any]) -> None:
    for p in resources(shipped["prod"], POLICY):
        subject = p["documentation"]["subject"]
        assert "${" not in subject.replace("$${", "")


def test_driver_installer_alert_with_daemonset_pool(synth: Any) -> None:
    doc = synth(set_path(base_config(), "gpu_pools[0].driver_mode", "daemonset"))
    p = one(doc, POLICY, display_name="[test] NVIDIA driver installer pods not running")
    [cond] = p["conditions"]
    assert cond["condition_matched_log"]["filter"] == (
        'resource.type="k8s_pod" AND resource.labels.cluster_name="ml-test" '
        'AND resource.labels.namespace_name="kube-system" AND resource.labels.pod_name=~"^nvidia-driver-installer-" '
        'AND jsonPayload.reason=("BackOff" OR "Failed" OR "FailedScheduling" OR "FailedMount")'
    )
    assert p["alert_strategy"]["notification_rate_limit"] == {"period": "3600s"}
    assert p["severity"] == "ERROR"
    assert "notification_channels" not in p  # base config defines no channel: console only
    assert not resources(doc, CHANNEL)


def test_channels_email_and_pagerduty_from_a_sensitive_variable(shipped: dict[str, Any]) -> None:
    prod = shipped["prod"]
    email = one(prod, CHANNEL, display_name="gke-accel prod oncall")
    assert (email["type"], email["labels"]) == ("email", {"email_address": "ml-oncall@acme.example.com"})
    pager = one(prod, CHANNEL, display_name="gke-accel prod pager")
    assert pager["type"] == "pagerduty"
    assert pager["sensitive_labels"] == {"service_key": "${var.pagerduty_service_key}"}
    assert prod["variable"]["pagerduty_service_key"]["sensitive"] is True
    assert len(resources(shipped["dev"], CHANNEL)) == 1


def test_webhook_channel(synth: Any) -> None:
    data = set_path(
        base_config(),
        "monitoring",
        {
            "notification_channels": [{"name": "hook", "type": "webhook", "url": "https://hooks.example.com/x"}],
            "alert_channels": ["hook"],
        },
    )
    doc = synth(data)
    hook = one(doc, CHANNEL, type="webhook_tokenauth")
    assert hook["labels"] == {"url": "https://hooks.example.com/x"}
    for p in resources(doc, POLICY):
        assert p["notification_channels"] == [
            "${google_monitoring_notification_channel." + next(iter(doc["resource"][CHANNEL])) + ".name}"
        ]


@pytest.mark.parametrize("env", ENVS)
def test_one_dashboard_per_environment_with_pool_widgets(shipped: dict[str, Any], env: str) -> None:
    [dash] = resources(shipped[env], DASHBOARD)
    body = json.loads(dash["dashboard_json"])
    titles = [w["title"] for w in body["gridLayout"]["widgets"]]
    assert "GPU duty cycle (%) by model" in titles
    assert "Accelerator memory used / total by model" in titles
    assert any(t.startswith("Nodes per pool") for t in titles)
    assert "Pods unschedulable for lack of accelerators" in titles
    # environments with a Spot pool: dev (all Spot), staging (l4-spot, its L4 ladder's last rung); prod none
    assert ("Spot preemptions" in titles) == (env in ("dev", "staging"))


def test_monitoring_disabled_emits_no_policies_or_dashboard(synth: Any) -> None:
    doc = synth(set_path(base_config(), "monitoring", {"enabled": False}))
    assert not resources(doc, POLICY) and not resources(doc, DASHBOARD)


def test_prod_quota_preference_for_documented_h100_family_only(shipped: dict[str, Any]) -> None:
    [q] = resources(shipped["prod"], QUOTA)
    assert q["parent"] == "projects/acme-ml-prod"
    assert (q["service"], q["quota_id"]) == ("compute.googleapis.com", "GPUS-PER-GPU-FAMILY-per-project-region")
    assert q["dimensions"] == {"region": "us-central1", "gpu_family": "NVIDIA_H100"}
    assert q["quota_config"] == {"preferred_value": "16"}
    assert q["contact_email"] == "ml-platform@acme.example.com"
    assert q["name"] == "compute_googleapis_com-GPUS-PER-GPU-FAMILY-per-project-region_us-central1_NVIDIA_H100"
    assert not resources(shipped["dev"], QUOTA) and not resources(shipped["staging"], QUOTA)


def test_prod_budget(shipped: dict[str, Any]) -> None:
    [b] = resources(shipped["prod"], BUDGET)
    assert b["billing_account"] == "01A2B3-C4D5E6-F7A8B9"
    assert b["amount"] == {"specified_amount": {"currency_code": "USD", "units": "150000"}}
    assert [(r["threshold_percent"], r["spend_basis"]) for r in b["threshold_rules"]] == [
        (0.5, "CURRENT_SPEND"),
        (0.9, "CURRENT_SPEND"),
        (1, "CURRENT_SPEND"),
        (1, "FORECASTED_SPEND"),
    ]
    # The project number comes from config/prod.yaml: nothing is read from the API, prod plans offline.
    assert b["budget_filter"]["projects"] == ["projects/418027736645"]
    assert "data" not in shipped["prod"] or "google_project" not in shipped["prod"]["data"]
    assert len(b["all_updates_rule"]["monitoring_notification_channels"]) == 2
    assert all(c.endswith(".id}") for c in b["all_updates_rule"]["monitoring_notification_channels"])
    assert len(b["display_name"]) <= 60
    assert not resources(shipped["dev"], BUDGET)


def test_budget_label_filter(synth: Any) -> None:
    data = set_path(
        base_config(),
        "budget",
        {
            "billing_account": "012345-6789AB-CDEF01",
            "amount_usd": 500,
            "label": {"team": "ml"},
            "forecast_percent": None,
        },
    )
    doc = synth(data)
    [b] = resources(doc, BUDGET)
    assert b["budget_filter"]["labels"] == {"team": "ml"}
    # Without project_number the number is read from the API by a data source.
    [ref] = b["budget_filter"]["projects"]
    name = ref.removeprefix("projects/${data.google_project.").removesuffix(".number}")
    assert doc["data"]["google_project"][name]["project_id"] == "acme-ml-test"
    assert [r["spend_basis"] for r in b["threshold_rules"]] == ["CURRENT_SPEND"] * 3
    assert "monitoring_notification_channels" not in b["all_updates_rule"]


@pytest.mark.parametrize("env", ENVS)
def test_shipped_driver_installer_alert_follows_daemonset_pools(shipped: dict[str, Any], env: str) -> None:
    from pathlib import Path

    from gke_accel.model import load_environment

    plan = load_environment(Path(__file__).resolve().parents[2] / "config" / f"{env}.yaml")
    daemonset = any(p.driver_mode == "daemonset" for p in plan.pools)
    assert ("gpu-driver-installer" in alerts(shipped[env])) == daemonset


def test_webhook_url_from_a_sensitive_variable(synth: Any) -> None:
    # D7: the URL of a webhook_tokenauth channel carries its token, so it comes from a sensitive
    # variable set at apply time (TF_VAR_hook_url), as a PagerDuty key does
    data = set_path(
        base_config(),
        "monitoring",
        {
            "notification_channels": [{"name": "hook", "type": "webhook", "url_variable": "hook_url"}],
            "alert_channels": ["hook"],
        },
    )
    doc = synth(data)
    hook = one(doc, CHANNEL, type="webhook_tokenauth")
    assert hook["labels"] == {"url": "${var.hook_url}"}
    assert doc["variable"]["hook_url"]["sensitive"] is True
    assert "TF_VAR_hook_url" in doc["variable"]["hook_url"]["description"]
