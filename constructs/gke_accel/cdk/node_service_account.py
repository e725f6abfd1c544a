"""NodeServiceAccount: a dedicated Google service account for nodes with least-privilege roles,
instead of the Compute Engine default account (which has Editor on the project)."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import ProjectIamMember, ServiceAccount

# What a node needs: write logs and metrics, read monitoring metadata, report autoscaling
# metrics, and pull images from Artifact Registry. Nothing else.
NODE_ROLES = (
    "roles/logging.logWriter",
    "roles/monitoring.metricWriter",
    "roles/monitoring.viewer",
    "roles/stackdriver.resourceMetadata.writer",
    "roles/autoscaling.metricsWriter",
    "roles/artifactregistry.reader",
)


class NodeServiceAccount(Construct):
    def __init__(self, scope: Construct, id: str, *, project: str, account_id: str) -> None:
        super().__init__(scope, id)
        account = ServiceAccount(
            self, "account", project=project, account_id=account_id, display_name=f"GKE nodes ({account_id})"
        )
        self.email: str = account.email
        for role in NODE_ROLES:
            ProjectIamMember(self, role.split("/")[1], project=project, role=role, member=account.member)
