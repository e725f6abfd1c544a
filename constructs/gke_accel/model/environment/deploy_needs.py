"""What deploying an environment needs from its Google Cloud project: the APIs the stack enables
(``google_project_service``, never disabled on destroy) and the IAM roles of whoever runs Terraform.

Both are derived from what the environment uses, so ``gke-accel deploy-roles`` (model only, no
provider bindings) and the synthesized stack agree. ``RESOURCE_SERVICE`` names the API behind every
Google resource type the constructs create; a test checks each synthesized stack against it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.storage.restart import streams

# Google resource type -> the API it is created through (data sources need no enabled API of ours).
RESOURCE_SERVICE: dict[str, str] = {
    "google_container_cluster": "container.googleapis.com",
    "google_container_node_pool": "container.googleapis.com",
    "google_compute_network": "compute.googleapis.com",
    "google_compute_subnetwork": "compute.googleapis.com",
    "google_compute_router": "compute.googleapis.com",
    "google_compute_router_nat": "compute.googleapis.com",
    "google_compute_firewall": "compute.googleapis.com",
    "google_compute_resource_policy": "compute.googleapis.com",
    "google_service_account": "iam.googleapis.com",
    "google_service_account_iam_member": "iam.googleapis.com",
    "google_project_iam_member": "cloudresourcemanager.googleapis.com",
    "google_storage_bucket": "storage.googleapis.com",
    "google_storage_bucket_iam_member": "storage.googleapis.com",
    "google_monitoring_alert_policy": "monitoring.googleapis.com",
    "google_monitoring_dashboard": "monitoring.googleapis.com",
    "google_monitoring_notification_channel": "monitoring.googleapis.com",
    "google_cloud_quotas_quota_preference": "cloudquotas.googleapis.com",
    "google_billing_budget": "billingbudgets.googleapis.com",
    "google_kms_key_ring": "cloudkms.googleapis.com",
    "google_kms_crypto_key": "cloudkms.googleapis.com",
    "google_kms_crypto_key_iam_member": "cloudkms.googleapis.com",
    "google_binary_authorization_policy": "binaryauthorization.googleapis.com",
    "google_artifact_registry_repository": "artifactregistry.googleapis.com",
}


@dataclass(frozen=True)
class ProjectService:
    name: str  # e.g. container.googleapis.com
    reason: str


@dataclass(frozen=True)
class DeployerRole:
    role: str
    scope: str  # "project", "billing account <id>" or "bucket <name>"
    reason: str


def required_services(plan: EnvironmentPlan) -> tuple[ProjectService, ...]:
    """The APIs this environment's stack uses, in a stable order."""
    spec = plan.spec
    out = [
        ProjectService("container.googleapis.com", "GKE cluster and node pools"),
        ProjectService("compute.googleapis.com", "network, subnet, router, NAT, firewall, placement policies"),
        ProjectService("iam.googleapis.com", "node and team service accounts, Workload Identity bindings"),
        ProjectService("cloudresourcemanager.googleapis.com", "project IAM roles of the node service account"),
        ProjectService("logging.googleapis.com", "cluster logging (system components and workloads)"),
        ProjectService("monitoring.googleapis.com", "managed Prometheus, alert policies, dashboard"),
    ]
    if (spec.cluster.binary_authorization.mode or "audit") != "disabled":
        out.append(ProjectService("binaryauthorization.googleapis.com", "Binary Authorization policy and evaluation"))
    if spec.cluster.secrets_encryption.mode != "off":
        out.append(ProjectService("cloudkms.googleapis.com", "Cloud KMS key for application-layer Secrets encryption"))
    if spec.platform.checkpoints.enabled:
        out.append(ProjectService("storage.googleapis.com", "checkpoint bucket"))
    if any(streams(spec.restart, p) for p in plan.pools):
        out.append(ProjectService("containerfilesystem.googleapis.com", "image streaming on accelerator pools"))
    if spec.restart.registry.create:
        out.append(ProjectService("artifactregistry.googleapis.com", "the training images' repository"))
    if spec.quota_preferences:
        out.append(ProjectService("cloudquotas.googleapis.com", "quota preferences (quota_preferences: true)"))
    if spec.budget is not None:
        out.append(ProjectService("billingbudgets.googleapis.com", "billing budget (budget)"))
    return tuple(out)


def deployer_roles(plan: EnvironmentPlan) -> tuple[DeployerRole, ...]:
    """The predefined roles that let one identity deploy (and destroy) this environment."""
    spec = plan.spec
    roles = [
        DeployerRole(
            "roles/container.admin", "project", "cluster, node pools; Kubernetes objects via the DNS endpoint"
        ),
        DeployerRole("roles/serviceusage.serviceUsageAdmin", "project", "enable the APIs the stack needs"),
        DeployerRole("roles/iam.serviceAccountAdmin", "project", "node and team service accounts, WI bindings"),
        DeployerRole("roles/iam.serviceAccountUser", "project", "node pools run as the node service account"),
        DeployerRole("roles/resourcemanager.projectIamAdmin", "project", "grant the node service account its roles"),
        DeployerRole("roles/monitoring.editor", "project", "notification channels, alert policies, dashboard"),
    ]
    if spec.platform.checkpoints.enabled:
        roles.append(DeployerRole("roles/storage.admin", "project", "checkpoint bucket and its per-team access"))
    if spec.cluster.network.create:
        roles.append(DeployerRole("roles/compute.networkAdmin", "project", "VPC, subnet, router and Cloud NAT"))
        roles.append(DeployerRole("roles/compute.securityAdmin", "project", "the VPC's firewall rules"))
    if any(p.placement is not None for p in plan.pools):
        roles.append(DeployerRole("roles/compute.instanceAdmin.v1", "project", "placement policies of compact pools"))
    if (spec.cluster.binary_authorization.mode or "audit") != "disabled":
        roles.append(DeployerRole("roles/binaryauthorization.policyEditor", "project", "the project's image policy"))
    if spec.cluster.secrets_encryption.mode == "create":
        roles.append(DeployerRole("roles/cloudkms.admin", "project", "key ring, key and the GKE agent's use of it"))
    if spec.restart.registry.create:
        roles.append(DeployerRole("roles/artifactregistry.admin", "project", "the training images' repository"))
    if spec.quota_preferences:
        roles.append(DeployerRole("roles/cloudquotas.admin", "project", "quota preferences"))
    if spec.budget is not None:
        account = spec.budget.billing_account or "(billing_account)"
        roles.append(DeployerRole("roles/billing.costsManager", f"billing account {account}", "the budget"))
    if spec.backend.type == "gcs":
        roles.append(
            DeployerRole("roles/storage.objectAdmin", f"bucket {spec.backend.bucket}", "Terraform state and its lock")
        )
    return tuple(roles)
