"""``google_cloud_quotas_quota_preference`` resources for the documented quota IDs that the
pools' maximum sizes need (``model/observability/quotas.py``). ``terraform destroy`` only forgets a preference:
the granted quota is not reverted (the provider excludes delete)."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import CloudQuotasQuotaPreference, CloudQuotasQuotaPreferenceQuotaConfig
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.observability.quotas import SERVICE


class QuotaPreferences(Construct):
    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, contact_email: str) -> None:
        super().__init__(scope, id)
        self.preferences: list[CloudQuotasQuotaPreference] = []
        for need in plan.quotas.emitted:
            assert need.quota is not None
            pools = ", ".join(f"{name} ({nodes} x {chips})" for name, nodes, chips, _ in need.pools)
            self.preferences.append(
                CloudQuotasQuotaPreference(
                    self,
                    f"{need.accelerator}-{need.bucket}".replace("_", "-"),
                    parent=f"projects/{plan.spec.project_id}",
                    name=need.preference_name,
                    service=SERVICE,
                    quota_id=need.quota.quota_id,
                    dimensions=need.dimensions,
                    contact_email=contact_email,
                    justification=(
                        f"gke-accel environment {plan.name}: GKE node pools {pools} need up to "
                        f"{need.total} {need.accelerator} in {need.region}"
                    ),
                    quota_config=CloudQuotasQuotaPreferenceQuotaConfig(preferred_value=str(need.total)),
                )
            )
