"""Every monitoring / budget / quota-preference rule, each with an accepted and a rejected case.

Same shape as tests/model/test_rules_*.py: ``setup`` applies first, then ``path`` is set to
``good`` (must load) and to ``bad`` (must fail with an issue at ``issue_path`` containing
``text``). Pure model: no provider bindings.
"""

from __future__ import annotations

import pytest

from gke_accel.model import ConfigError, load_environment_text
from helpers import OMIT, Rule, assert_rule_accepts, assert_rule_rejects, base_config, set_path, to_yaml

CH = "monitoring.notification_channels"
ONCALL = {"name": "oncall", "type": "email", "address": "oncall@example.com"}
PAGER = {"name": "pager", "type": "pagerduty", "service_key_variable": "pd_key"}
HOOK = {"name": "hook", "type": "webhook", "url": "https://hooks.example.com/alerts"}
WITH_ONCALL = {CH: [ONCALL]}
TH = "monitoring.thresholds"
BUDGET = {"billing_account": "012345-6789AB-CDEF01", "amount_usd": 1000}
SIX = [{"name": f"c{i}", "type": "email", "address": f"c{i}@example.com"} for i in range(6)]

RULES = [
    # --- notification channels ---
    Rule(
        "channel-name", f"{CH}[0].name", "oncall", "On Call", f"{CH}[0].name", "not a valid channel name", WITH_ONCALL
    ),
    Rule(
        "channel-unique",
        f"{CH}[1].name",
        "oncall2",
        "oncall",
        f"{CH}[1].name",
        "used twice",
        {CH: [ONCALL, dict(ONCALL)]},
    ),
    Rule("channel-type", f"{CH}[0].type", "email", "slack", f"{CH}[0].type", "not a valid choice", WITH_ONCALL),
    Rule(
        "email-address",
        f"{CH}[0].address",
        "a@b.example",
        "not-an-email",
        f"{CH}[0].address",
        "not an email",
        WITH_ONCALL,
    ),
    Rule(
        "email-needs-address",
        f"{CH}[0].address",
        "a@b.example",
        None,
        f"{CH}[0].address",
        "required for email",
        WITH_ONCALL,
    ),
    Rule(
        "field-of-other-type",
        f"{CH}[0].url",
        None,
        "https://x.example",
        f"{CH}[0].url",
        "not used by email",
        WITH_ONCALL,
    ),
    Rule(
        "webhook-one-source",
        f"{CH}[0]",
        {"name": "hook", "type": "webhook", "url_variable": "hook_url"},
        {"name": "hook", "type": "webhook", "url_variable": "hook_url", "url": "https://h.example/x"},
        f"{CH}[0].url",
        "is given with url_variable",
        {CH: [HOOK]},
    ),
    Rule(
        "pagerduty-variable",
        f"{CH}[0].service_key_variable",
        "pagerduty_key",
        "u+abc123secret!",
        f"{CH}[0].service_key_variable",
        "not a Terraform variable name",
        {CH: [PAGER]},
    ),
    Rule(
        "webhook-https",
        f"{CH}[0].url",
        "https://h.example/x",
        "http://h.example/x",
        f"{CH}[0].url",
        "https",
        {CH: [HOOK]},
    ),
    # D7: GCP's webhook_tokenauth channel authenticates by a token in its URL; in config it would land
    # in git, cdk.tf.json and the review: such a URL comes from a sensitive variable (url_variable)
    Rule(
        "webhook-token-in-query",
        f"{CH}[0].url",
        "https://hooks.example.com/x?team=ml",
        "https://hooks.example.com/x?auth_token=SECRET123",
        f"{CH}[0].url",
        "carries a token in the query (auth_token)",
        {CH: [HOOK]},
    ),
    Rule(
        "webhook-userinfo",
        f"{CH}[0].url",
        "https://hooks.example.com/x",
        "https://user:hunter2@hooks.example.com/x",
        f"{CH}[0].url",
        "carries a user name or password",
        {CH: [HOOK]},
    ),
    Rule(
        "webhook-url-variable",
        f"{CH}[0]",
        {"name": "hook", "type": "webhook", "url_variable": "hook_url"},
        {"name": "hook", "type": "webhook", "url_variable": "https://hooks.example.com/x?auth_token=S"},
        f"{CH}[0].url_variable",
        "not a Terraform variable name (the secret itself never goes in config)",
        {CH: [HOOK]},
    ),
    # --- references to channels ---
    Rule(
        "alert-channel-defined",
        "monitoring.alert_channels",
        ["oncall"],
        ["oncal"],
        "monitoring.alert_channels[0]",
        "not a defined notification channel; did you mean 'oncall'?",
        WITH_ONCALL,
    ),
    Rule(
        "alert-channel-once",
        "monitoring.alert_channels",
        ["oncall"],
        ["oncall", "oncall"],
        "monitoring.alert_channels",
        "twice",
        WITH_ONCALL,
    ),
    Rule(
        "route-channel-defined",
        "monitoring.routes",
        {"nodes_not_ready": ["oncall"]},
        {"nodes_not_ready": ["pager"]},
        "monitoring.routes.nodes_not_ready[0]",
        "not a defined notification channel",
        WITH_ONCALL,
    ),
    Rule(
        "route-alert-name",
        "monitoring.routes",
        {"gpu_idle": ["oncall"]},
        {"gpu_idel": ["oncall"]},
        "monitoring.routes.gpu_idel",
        "not an alert name; did you mean 'gpu_idle'?",
        WITH_ONCALL,
    ),
    Rule(
        "severity-alert-name",
        "monitoring.severity",
        {"tpu_idle": "ERROR"},
        {"tpu-idle": "ERROR"},
        "monitoring.severity.tpu-idle",
        "not an alert name",
    ),
    Rule(
        "severity-value",
        "monitoring.severity",
        {"tpu_idle": "CRITICAL"},
        {"tpu_idle": "INFO"},
        "monitoring.severity.tpu_idle",
        "not a valid choice",
    ),
    Rule(
        "disabled-alert-name",
        "monitoring.disabled_alerts",
        ["gpu_idle"],
        ["idle"],
        "monitoring.disabled_alerts[0]",
        "not an alert name",
    ),
    # --- thresholds and windows ---
    Rule("gpu-idle-percent", f"{TH}.gpu_idle_percent", 10, 0, f"{TH}.gpu_idle_percent", "out of range"),
    Rule("tpu-idle-percent", f"{TH}.tpu_idle_percent", 2.5, 100, f"{TH}.tpu_idle_percent", "out of range"),
    Rule("memory-full-percent", f"{TH}.memory_full_percent", 90, 120, f"{TH}.memory_full_percent", "out of range"),
    Rule(
        "duration-whole-seconds",
        f"{TH}.gpu_idle_duration_seconds",
        1800,
        1800.5,
        f"{TH}.gpu_idle_duration_seconds",
        "should be a whole number",
    ),
    Rule(
        "duration-whole-minutes",
        f"{TH}.tpu_idle_duration_seconds",
        1800,
        1830,
        f"{TH}.tpu_idle_duration_seconds",
        "not a valid window",
    ),
    Rule(
        "duration-at-most-a-day",
        f"{TH}.memory_full_duration_seconds",
        86400,
        90000,
        f"{TH}.memory_full_duration_seconds",
        "not a valid window",
    ),
    Rule(
        "not-ready-window",
        f"{TH}.not_ready_duration_seconds",
        60,
        30,
        f"{TH}.not_ready_duration_seconds",
        "not a valid window",
    ),
    Rule(
        "log-rate-limit",
        f"{TH}.log_alert_rate_limit_seconds",
        300,
        120,
        f"{TH}.log_alert_rate_limit_seconds",
        "300 to 86400",
    ),
    Rule("auto-close", f"{TH}.auto_close_seconds", 1800, 900, f"{TH}.auto_close_seconds", "1800 to 604800"),
    Rule(
        "threshold-unknown-key", f"{TH}.gpu_idle_pct", OMIT, 5, f"{TH}.gpu_idle_pct", "did you mean 'gpu_idle_percent'?"
    ),
    # --- quota preferences ---
    Rule(
        "quota-contact-email",
        "monitoring.quota_contact",
        "ml@example.com",
        "ml-at-example",
        "monitoring.quota_contact",
        "not an email",
    ),
    Rule(
        "quota-preferences-need-contact",
        "monitoring.quota_contact",
        "ml@example.com",
        None,
        "quota_preferences",
        "needs a contact email",
        {"quota_preferences": True},
    ),
    # --- budget ---
    Rule(
        "budget-billing-account",
        "budget.billing_account",
        "012345-6789AB-CDEF01",
        None,
        "budget.billing_account",
        "is required",
        {"budget": BUDGET},
    ),
    Rule(
        "budget-billing-account-format",
        "budget.billing_account",
        "012345-6789AB-CDEF01",
        "12345",
        "budget.billing_account",
        "not a billing account ID",
        {"budget": BUDGET},
    ),
    Rule("budget-amount", "budget.amount_usd", 1, 0, "budget.amount_usd", "out of range", {"budget": BUDGET}),
    Rule(
        "budget-threshold-range",
        "budget.thresholds_percent",
        [50, 100],
        [50, 0],
        "budget.thresholds_percent[1]",
        "out of range",
        {"budget": BUDGET},
    ),
    Rule(
        "budget-threshold-once",
        "budget.thresholds_percent",
        [50, 90],
        [90, 90],
        "budget.thresholds_percent",
        "twice",
        {"budget": BUDGET},
    ),
    Rule(
        "budget-threshold-some",
        "budget.thresholds_percent",
        [100],
        [],
        "budget.thresholds_percent",
        "is empty",
        {"budget": BUDGET},
    ),
    Rule(
        "budget-forecast",
        "budget.forecast_percent",
        120,
        2000,
        "budget.forecast_percent",
        "out of range",
        {"budget": BUDGET},
    ),
    Rule(
        "budget-channel-defined",
        "budget.channels",
        ["oncall"],
        ["finops"],
        "budget.channels[0]",
        "not a defined notification channel",
        {"budget": BUDGET, **WITH_ONCALL},
    ),
    Rule(
        "budget-at-most-5-channels",
        "budget.channels",
        [f"c{i}" for i in range(5)],
        [f"c{i}" for i in range(6)],
        "budget.channels",
        "more than 5",
        {"budget": BUDGET, CH: SIX},
    ),
    Rule(
        "budget-one-label",
        "budget.label",
        {"team": "ml"},
        {"team": "ml", "env": "prod"},
        "budget.label",
        "more than one pair",
        {"budget": BUDGET},
    ),
    Rule(
        "budget-label-valid",
        "budget.label",
        {"team": "ml"},
        {"team": "ML Team"},
        "budget.label.team",
        "not a valid label pair",
        {"budget": BUDGET},
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_the_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_the_bad_value_with_path_value_and_valid(rule: Rule) -> None:
    assert_rule_rejects(rule)


def test_rule_ids_are_unique() -> None:
    assert len({r.id for r in RULES}) == len(RULES)


def test_a_budget_without_billing_account_names_the_field_and_what_is_valid() -> None:
    data = set_path(base_config(), "budget", {"amount_usd": 100})
    with pytest.raises(ConfigError) as err:
        load_environment_text(to_yaml(data), source="config/x.yaml")
    text = err.value.render()
    assert "config/x.yaml: budget.billing_account: null is required" in text
    assert "valid: the account ID" in text


def test_a_refused_webhook_url_is_not_echoed_with_its_secret() -> None:
    data = set_path(base_config(), CH, [{**HOOK, "url": "https://u:hunter2@hooks.example.com/x?auth_token=SECRET123"}])
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    text = info.value.render()
    assert "https://***@hooks.example.com/x?auth_token=***" in text
    assert "hunter2" not in text and "SECRET123" not in text
    assert "TF_VAR_hook_url" in text


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.slack.com/services/T0000/B0000/XXXXSECRET",  # Slack: the path is the credential
        "https://discord.com/api/webhooks/123/XXXXSECRET",
        "https://acme.webhook.office.com/webhookb2/XXXXSECRET",
        "https://hooks.example.com/x#auth_token=XXXXSECRET",  # a fragment
        "https://hooks.example.com/x?a=1;auth_token=XXXXSECRET",  # ';'-separated parameters
        "https://hooks.example.com/x?t=XXXXSECRET",  # a short parameter name
    ],
)
def test_e12_a_credential_in_a_webhook_url_is_refused_without_echoing_it(url: str) -> None:
    data = set_path(base_config(), CH, [{**HOOK, "url": url}])
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(data))
    text = info.value.render()
    assert ".url:" in text and "lands in git" in text and "TF_VAR_hook_url" in text
    assert "XXXXSECRET" not in text


@pytest.mark.parametrize("url", ["https://hooks.example.com/alerts", "https://hooks.example.com/alerts?team=ml"])
def test_e12_a_webhook_url_without_a_credential_is_accepted(url: str) -> None:
    load_environment_text(to_yaml(set_path(base_config(), CH, [{**HOOK, "url": url}])))


def test_e12_a_pagerduty_key_pasted_as_the_variable_name_is_refused_and_not_echoed() -> None:
    key = "e93facc04764012d7bfb002500d5d1a6"  # the shape of a PagerDuty integration key: 32 hex digits
    channel = {"name": "pager", "type": "pagerduty", "service_key_variable": key}
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(set_path(base_config(), CH, [channel])))
    text = info.value.render()
    assert "service_key_variable" in text and "looks like a key itself" in text and key not in text
    load_environment_text(to_yaml(set_path(base_config(), CH, [{**channel, "service_key_variable": "pager_key"}])))
