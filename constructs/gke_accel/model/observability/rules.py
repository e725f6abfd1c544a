"""Rules for the monitoring, quota-preference and budget config of an environment.

Range rules that come from the Cloud Monitoring API rather than from taste:
- a threshold condition's ``duration`` must be a whole number of minutes (MetricThreshold.duration:
  "only values that are a multiple of a minute ... are supported"), so every alert window here is
  a multiple of 60 s; windows are capped at one day.
- ``notification_rate_limit.period`` and ``auto_close``: the console offers 5 min and up, and
  30 min to 7 days. These bounds are enforced here; whether the API itself rejects values outside
  them was NOT confirmed.
- a budget notifies at most 5 monitoring channels (MM ``Budget.yaml``) and filters on at most
  one label pair.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.names import LABEL_KEY, LABEL_VALUE
from gke_accel.model.core.parse import suggest
from gke_accel.model.core.secrets import looks_like_key, mask_url, url_credentials
from gke_accel.model.observability.alerts import ALERT_NAMES
from gke_accel.model.observability.spec import BudgetSpec, MonitoringSpec

CHANNEL_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
TF_VARIABLE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")
BILLING_ACCOUNT = re.compile(r"^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$")
MAX_BUDGET_CHANNELS = 5
MAX_WINDOW = 86400
TYPE_FIELDS = {"email": ("address",), "pagerduty": ("service_key_variable",), "webhook": ("url_variable", "url")}


def _minutes(path: str, value: int, issues: IssueCollector, low: int = 60, high: int = MAX_WINDOW) -> None:
    if value < low or value > high or value % 60:
        issues.bad(path, value, "is not a valid window", f"whole minutes in seconds, {low} to {high} (e.g. 600)")


def _percent(path: str, value: float, issues: IssueCollector, low: float, high: float) -> None:
    if not low < value < high:
        issues.bad(path, value, "is out of range", f"more than {low:g} and less than {high:g}")


def _check_channels(m: MonitoringSpec, issues: IssueCollector) -> None:
    seen: set[str] = set()
    for i, ch in enumerate(m.notification_channels):
        p = f"monitoring.notification_channels[{i}]"
        if not CHANNEL_NAME.fullmatch(ch.name):
            issues.bad(f"{p}.name", ch.name, "is not a valid channel name", "lowercase letters, digits and '-'")
        if ch.name in seen:
            issues.bad(f"{p}.name", ch.name, "is used twice", "unique channel names")
        seen.add(ch.name)
        fields = TYPE_FIELDS[ch.type]
        values = {
            "address": ch.address,
            "service_key_variable": ch.service_key_variable,
            "url": ch.url,
            "url_variable": ch.url_variable,
        }
        for key, value in values.items():
            if key not in fields and value is not None:
                issues.bad(f"{p}.{key}", value, f"is not used by {ch.type} channels", f"only {' or '.join(fields)}")
        given = [k for k in fields if values[k] is not None]
        if not given:
            issues.bad(f"{p}.{fields[0]}", None, f"is required for {ch.type} channels")
            continue
        if len(given) > 1:
            issues.bad(f"{p}.{given[1]}", values[given[1]], f"is given with {given[0]}", f"one of {', '.join(fields)}")
        key, value = given[0], str(values[given[0]])
        if ch.type == "email" and not EMAIL.fullmatch(value):
            issues.bad(f"{p}.address", value, "is not an email address", "e.g. ml-oncall@example.com")
        elif key in ("service_key_variable", "url_variable") and looks_like_key(value):
            issues.bad(
                f"{p}.{key}",
                "***",
                "looks like a key itself, not the name of a variable that holds it (it would be printed as "
                "TF_VAR_<key> and land in git)",
                f"e.g. {ch.name.replace('-', '_')}_{'service_key' if key == 'service_key_variable' else 'url'}",
            )
        elif key in ("service_key_variable", "url_variable") and not TF_VARIABLE.fullmatch(value):
            issues.bad(
                f"{p}.{key}",
                value,
                "is not a Terraform variable name (the secret itself never goes in config)",
                f"e.g. {ch.name.replace('-', '_')}_{'service_key' if key == 'service_key_variable' else 'url'}, "
                f"set at apply time as TF_VAR_<name>",
            )
        elif key == "url":
            _check_webhook_url(f"{p}.url", value, ch.name, issues)


def _check_webhook_url(path: str, value: str, channel: str, issues: IssueCollector) -> None:
    """A URL in config lands in git, ``cdk.tf.json``, state and the PR review: no credential in it."""
    if not value.startswith("https://"):
        issues.bad(path, value, "is not an https URL", "https://...")
        return
    credential = url_credentials(value)
    if credential:
        issues.bad(
            path,
            mask_url(value),
            f"carries {credential}; a URL in config lands in git, cdk.tf.json and the pull-request review",
            f"url_variable: {channel.replace('-', '_')}_url (a sensitive Terraform variable the stack declares; "
            f"set it at apply time as TF_VAR_{channel.replace('-', '_')}_url)",
        )


def _check_refs(path: str, names: Sequence[str], defined: list[str], issues: IssueCollector) -> None:
    for i, name in enumerate(names):
        if name not in defined:
            hint = suggest(name, defined)
            issues.bad(
                f"{path}[{i}]",
                name,
                f"is not a defined notification channel; {hint}".rstrip("; ").rstrip(),
                defined or "define it under monitoring.notification_channels",
            )
    if len(set(names)) != len(names):
        issues.bad(path, list(names), "lists a channel twice")


def _check_alert_key(path: str, key: str, issues: IssueCollector) -> None:
    if key not in ALERT_NAMES:
        hint = suggest(key, list(ALERT_NAMES))
        issues.bad(path, key, f"is not an alert name; {hint}".rstrip("; ").rstrip(), ALERT_NAMES)


def _check_monitoring(m: MonitoringSpec, issues: IssueCollector) -> list[str]:
    _check_channels(m, issues)
    defined = [c.name for c in m.notification_channels]
    _check_refs("monitoring.alert_channels", m.alert_channels, defined, issues)
    for key, names in m.routes.items():
        _check_alert_key(f"monitoring.routes.{key}", key, issues)
        _check_refs(f"monitoring.routes.{key}", names, defined, issues)
    for key in m.severity:
        _check_alert_key(f"monitoring.severity.{key}", key, issues)
    for i, key in enumerate(m.disabled_alerts):
        _check_alert_key(f"monitoring.disabled_alerts[{i}]", key, issues)
    t, p = m.thresholds, "monitoring.thresholds"
    _percent(f"{p}.gpu_idle_percent", t.gpu_idle_percent, issues, 0, 100)
    _percent(f"{p}.tpu_idle_percent", t.tpu_idle_percent, issues, 0, 100)
    _percent(f"{p}.memory_full_percent", t.memory_full_percent, issues, 0, 100)
    _minutes(f"{p}.gpu_idle_duration_seconds", t.gpu_idle_duration_seconds, issues)
    _minutes(f"{p}.tpu_idle_duration_seconds", t.tpu_idle_duration_seconds, issues)
    _minutes(f"{p}.memory_full_duration_seconds", t.memory_full_duration_seconds, issues)
    _minutes(f"{p}.not_ready_duration_seconds", t.not_ready_duration_seconds, issues)
    _minutes(f"{p}.log_alert_rate_limit_seconds", t.log_alert_rate_limit_seconds, issues, low=300)
    _minutes(f"{p}.auto_close_seconds", t.auto_close_seconds, issues, low=1800, high=604800)
    if m.quota_contact is not None and not EMAIL.fullmatch(m.quota_contact):
        issues.bad(
            "monitoring.quota_contact", m.quota_contact, "is not an email address", "e.g. ml-platform@example.com"
        )
    return defined


def _check_budget(b: BudgetSpec, m: MonitoringSpec, defined: list[str], issues: IssueCollector) -> None:
    if b.billing_account is None:
        issues.bad(
            "budget.billing_account",
            None,
            "is required: a budget belongs to a billing account",
            "the account ID, e.g. 012345-6789AB-CDEF01",
        )
    elif not BILLING_ACCOUNT.fullmatch(b.billing_account):
        issues.bad(
            "budget.billing_account", b.billing_account, "is not a billing account ID", "XXXXXX-XXXXXX-XXXXXX (hex)"
        )
    if b.amount_usd <= 0:
        issues.bad("budget.amount_usd", b.amount_usd, "is out of range", "a whole number of US dollars above 0")
    if not b.thresholds_percent:
        issues.bad("budget.thresholds_percent", [], "is empty", "e.g. [50, 90, 100]")
    for i, pct in enumerate(b.thresholds_percent):
        if not 0 < pct <= 1000:
            issues.bad(f"budget.thresholds_percent[{i}]", pct, "is out of range", "more than 0 and at most 1000 (%)")
    if len(set(b.thresholds_percent)) != len(b.thresholds_percent):
        issues.bad("budget.thresholds_percent", list(b.thresholds_percent), "lists a threshold twice")
    if b.forecast_percent is not None and not 0 < b.forecast_percent <= 1000:
        issues.bad("budget.forecast_percent", b.forecast_percent, "is out of range", "more than 0 and at most 1000 (%)")
    _check_refs("budget.channels", b.channels, defined, issues)
    channels = b.channels or m.alert_channels
    if len(channels) > MAX_BUDGET_CHANNELS:
        issues.bad(
            "budget.channels",
            list(channels),
            f"has more than {MAX_BUDGET_CHANNELS} channels (a budget notifies at most {MAX_BUDGET_CHANNELS})",
            "list at most 5 under budget.channels",
        )
    if len(b.label) > 1:
        issues.bad(
            "budget.label", b.label, "has more than one pair (a budget filters on a single label)", "one key: value"
        )
    for key, value in b.label.items():
        if not LABEL_KEY.fullmatch(key) or not LABEL_VALUE.fullmatch(value):
            issues.bad(f"budget.label.{key}", value, "is not a valid label pair", "a GCP label key and value")


def quota_contact(m: MonitoringSpec) -> str | None:
    """Who Google contacts about quota preferences: ``quota_contact`` or the first email channel."""
    if m.quota_contact:
        return m.quota_contact
    return next((c.address for c in m.notification_channels if c.type == "email" and c.address), None)


def check_observability(
    monitoring: MonitoringSpec, budget: BudgetSpec | None, *, quota_preferences: bool, issues: IssueCollector
) -> None:
    """Add an issue for every mistake in ``monitoring:``, ``budget:`` and quota preferences."""
    m = monitoring
    defined = _check_monitoring(m, issues)
    if budget is not None:
        _check_budget(budget, m, defined, issues)
    if quota_preferences and quota_contact(m) is None:
        issues.bad(
            "quota_preferences",
            True,
            "needs a contact email (the Cloud Quotas API requires one for increases)",
            "set monitoring.quota_contact or define an email notification channel",
        )
