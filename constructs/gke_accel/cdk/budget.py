"""``google_billing_budget`` for one environment: its project (plus an optional label pair),
threshold rules on current spend and one on forecasted spend, the environment's channels.

Note: the Billing Budgets API needs a quota project when called with user credentials
(provider ``user_project_override = true`` + ``billing_project``); see docs/observability.md.
"""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import BillingBudget, DataGoogleProject, budget_structs
from gke_accel.model.environment.plan import EnvironmentPlan


def billing_budget(scope: Construct, id: str, *, plan: EnvironmentPlan, channel_ids: dict[str, str]) -> BillingBudget:
    b = plan.spec.budget
    assert b is not None and b.billing_account is not None
    s = budget_structs
    # The project number from config when given; else read from the API (then the stack cannot plan offline).
    number = (
        plan.spec.project_number or DataGoogleProject(scope, f"{id}-project", project_id=plan.spec.project_id).number
    )
    rules = [
        s.BillingBudgetThresholdRules(threshold_percent=p / 100, spend_basis="CURRENT_SPEND")
        for p in b.thresholds_percent
    ]
    if b.forecast_percent is not None:
        rules.append(
            s.BillingBudgetThresholdRules(threshold_percent=b.forecast_percent / 100, spend_basis="FORECASTED_SPEND")
        )
    channels = b.channels or plan.spec.monitoring.alert_channels
    return BillingBudget(
        scope,
        id,
        billing_account=b.billing_account,
        display_name=f"gke-accel {plan.name} ({plan.spec.project_id})"[:60],
        budget_filter=s.BillingBudgetBudgetFilter(
            projects=[f"projects/{number}"],
            labels=dict(b.label) or None,
            calendar_period="MONTH",
            credit_types_treatment="INCLUDE_ALL_CREDITS",
        ),
        amount=s.BillingBudgetAmount(
            specified_amount=s.BillingBudgetAmountSpecifiedAmount(currency_code="USD", units=str(b.amount_usd))
        ),
        threshold_rules=rules,
        all_updates_rule=s.BillingBudgetAllUpdatesRule(
            monitoring_notification_channels=[channel_ids[n] for n in channels] or None,
            disable_default_iam_recipients=False,
        ),
    )
