"""The one place that imports the hashicorp/google provider bindings of the chosen framework
(``cdktn_provider_google`` or ``cdktf_cdktf_provider_google``, see ``_framework.py``).

Each resource comes from its own submodule: loading a provider's package root costs many seconds and
hundreds of megabytes. Both blocks import the same names; the type checker sees the default's.
"""

from typing import TYPE_CHECKING

from gke_accel.cdk._framework import FRAMEWORK
from gke_accel.frameworks import CDKTN

if TYPE_CHECKING or FRAMEWORK is CDKTN:
    from cdktn_provider_google import billing_budget as budget_structs
    from cdktn_provider_google import binary_authorization_policy as binauthz_structs
    from cdktn_provider_google import container_cluster as cluster_structs
    from cdktn_provider_google import container_node_pool as pool_structs
    from cdktn_provider_google import monitoring_alert_policy as alert_structs
    from cdktn_provider_google import storage_bucket as bucket_structs
    from cdktn_provider_google.artifact_registry_repository import ArtifactRegistryRepository
    from cdktn_provider_google.billing_budget import BillingBudget
    from cdktn_provider_google.binary_authorization_policy import BinaryAuthorizationPolicy
    from cdktn_provider_google.cloud_quotas_quota_preference import (
        CloudQuotasQuotaPreference,
        CloudQuotasQuotaPreferenceQuotaConfig,
    )
    from cdktn_provider_google.compute_firewall import ComputeFirewall, ComputeFirewallDeny, ComputeFirewallLogConfig
    from cdktn_provider_google.compute_network import ComputeNetwork
    from cdktn_provider_google.compute_resource_policy import ComputeResourcePolicy
    from cdktn_provider_google.compute_router import ComputeRouter
    from cdktn_provider_google.compute_router_nat import ComputeRouterNat, ComputeRouterNatLogConfig
    from cdktn_provider_google.compute_subnetwork import (
        ComputeSubnetwork,
        ComputeSubnetworkLogConfig,
        ComputeSubnetworkSecondaryIpRange,
    )
    from cdktn_provider_google.container_cluster import ContainerCluster
    from cdktn_provider_google.container_node_pool import ContainerNodePool
    from cdktn_provider_google.data_google_project import DataGoogleProject
    from cdktn_provider_google.kms_crypto_key import KmsCryptoKey
    from cdktn_provider_google.kms_crypto_key_iam_member import KmsCryptoKeyIamMember
    from cdktn_provider_google.kms_key_ring import KmsKeyRing
    from cdktn_provider_google.monitoring_alert_policy import MonitoringAlertPolicy
    from cdktn_provider_google.monitoring_dashboard import MonitoringDashboard
    from cdktn_provider_google.monitoring_notification_channel import (
        MonitoringNotificationChannel,
        MonitoringNotificationChannelSensitiveLabels,
    )
    from cdktn_provider_google.project_iam_member import ProjectIamMember
    from cdktn_provider_google.project_service import ProjectService
    from cdktn_provider_google.provider import GoogleProvider
    from cdktn_provider_google.service_account import ServiceAccount
    from cdktn_provider_google.service_account_iam_member import ServiceAccountIamMember
    from cdktn_provider_google.storage_bucket import StorageBucket
    from cdktn_provider_google.storage_bucket_iam_member import StorageBucketIamMember, StorageBucketIamMemberCondition
else:
    from cdktf_cdktf_provider_google import billing_budget as budget_structs
    from cdktf_cdktf_provider_google import binary_authorization_policy as binauthz_structs
    from cdktf_cdktf_provider_google import container_cluster as cluster_structs
    from cdktf_cdktf_provider_google import container_node_pool as pool_structs
    from cdktf_cdktf_provider_google import monitoring_alert_policy as alert_structs
    from cdktf_cdktf_provider_google import storage_bucket as bucket_structs
    from cdktf_cdktf_provider_google.artifact_registry_repository import ArtifactRegistryRepository
    from cdktf_cdktf_provider_google.billing_budget import BillingBudget
    from cdktf_cdktf_provider_google.binary_authorization_policy import BinaryAuthorizationPolicy
    from cdktf_cdktf_provider_google.cloud_quotas_quota_preference import (
        CloudQuotasQuotaPreference,
        CloudQuotasQuotaPreferenceQuotaConfig,
    )
    from cdktf_cdktf_provider_google.compute_firewall import (
        ComputeFirewall,
        ComputeFirewallDeny,
        ComputeFirewallLogConfig,
    )
    from cdktf_cdktf_provider_google.compute_network import ComputeNetwork
    from cdktf_cdktf_provider_google.compute_resource_policy import ComputeResourcePolicy
    from cdktf_cdktf_provider_google.compute_router import ComputeRouter
    from cdktf_cdktf_provider_google.compute_router_nat import ComputeRouterNat, ComputeRouterNatLogConfig
    from cdktf_cdktf_provider_google.compute_subnetwork import (
        ComputeSubnetwork,
        ComputeSubnetworkLogConfig,
        ComputeSubnetworkSecondaryIpRange,
    )
    from cdktf_cdktf_provider_google.container_cluster import ContainerCluster
    from cdktf_cdktf_provider_google.container_node_pool import ContainerNodePool
    from cdktf_cdktf_provider_google.data_google_project import DataGoogleProject
    from cdktf_cdktf_provider_google.kms_crypto_key import KmsCryptoKey
    from cdktf_cdktf_provider_google.kms_crypto_key_iam_member import KmsCryptoKeyIamMember
    from cdktf_cdktf_provider_google.kms_key_ring import KmsKeyRing
    from cdktf_cdktf_provider_google.monitoring_alert_policy import MonitoringAlertPolicy
    from cdktf_cdktf_provider_google.monitoring_dashboard import MonitoringDashboard
    from cdktf_cdktf_provider_google.monitoring_notification_channel import (
        MonitoringNotificationChannel,
        MonitoringNotificationChannelSensitiveLabels,
    )
    from cdktf_cdktf_provider_google.project_iam_member import ProjectIamMember
    from cdktf_cdktf_provider_google.project_service import ProjectService
    from cdktf_cdktf_provider_google.provider import GoogleProvider
    from cdktf_cdktf_provider_google.service_account import ServiceAccount
    from cdktf_cdktf_provider_google.service_account_iam_member import ServiceAccountIamMember
    from cdktf_cdktf_provider_google.storage_bucket import StorageBucket
    from cdktf_cdktf_provider_google.storage_bucket_iam_member import (
        StorageBucketIamMember,
        StorageBucketIamMemberCondition,
    )

__all__ = [
    "ArtifactRegistryRepository",
    "BillingBudget",
    "BinaryAuthorizationPolicy",
    "CloudQuotasQuotaPreference",
    "CloudQuotasQuotaPreferenceQuotaConfig",
    "ComputeFirewall",
    "ComputeFirewallDeny",
    "ComputeFirewallLogConfig",
    "ComputeNetwork",
    "ComputeResourcePolicy",
    "ComputeRouter",
    "ComputeRouterNat",
    "ComputeRouterNatLogConfig",
    "ComputeSubnetwork",
    "ComputeSubnetworkLogConfig",
    "ComputeSubnetworkSecondaryIpRange",
    "ContainerCluster",
    "ContainerNodePool",
    "DataGoogleProject",
    "GoogleProvider",
    "KmsCryptoKey",
    "KmsCryptoKeyIamMember",
    "KmsKeyRing",
    "MonitoringAlertPolicy",
    "MonitoringDashboard",
    "MonitoringNotificationChannel",
    "MonitoringNotificationChannelSensitiveLabels",
    "ProjectIamMember",
    "ProjectService",
    "ServiceAccount",
    "ServiceAccountIamMember",
    "StorageBucket",
    "StorageBucketIamMember",
    "StorageBucketIamMemberCondition",
    "alert_structs",
    "binauthz_structs",
    "bucket_structs",
    "budget_structs",
    "cluster_structs",
    "pool_structs",
]
