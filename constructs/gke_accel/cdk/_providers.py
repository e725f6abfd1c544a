"""The one place that imports provider bindings; each resource from its own submodule, because
loading the package root of a provider costs many seconds and hundreds of megabytes."""

# Observability (alerts, dashboard, quota preferences, budget): cdk/observability.py and friends.
from cdktf_cdktf_provider_google import billing_budget as budget_structs
from cdktf_cdktf_provider_google import monitoring_alert_policy as alert_structs
from cdktf_cdktf_provider_google.billing_budget import BillingBudget
from cdktf_cdktf_provider_google.cloud_quotas_quota_preference import (
    CloudQuotasQuotaPreference,
    CloudQuotasQuotaPreferenceQuotaConfig,
)
from cdktf_cdktf_provider_google.compute_firewall import ComputeFirewall, ComputeFirewallDeny, ComputeFirewallLogConfig
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
from cdktf_cdktf_provider_google.monitoring_alert_policy import MonitoringAlertPolicy
from cdktf_cdktf_provider_google.monitoring_dashboard import MonitoringDashboard
from cdktf_cdktf_provider_google.monitoring_notification_channel import (
    MonitoringNotificationChannel,
    MonitoringNotificationChannelSensitiveLabels,
)
from cdktf_cdktf_provider_google.project_iam_member import ProjectIamMember
from cdktf_cdktf_provider_google.provider import GoogleProvider
from cdktf_cdktf_provider_google.service_account import ServiceAccount

__all__ = [
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
    "GoogleProvider",
    "ProjectIamMember",
    "ServiceAccount",
]

# Struct namespaces for the two largest resources (their nested blocks are many).
from cdktf_cdktf_provider_google import container_cluster as cluster_structs
from cdktf_cdktf_provider_google import container_node_pool as pool_structs

__all__ += ["cluster_structs", "pool_structs"]

__all__ += [
    "BillingBudget",
    "CloudQuotasQuotaPreference",
    "CloudQuotasQuotaPreferenceQuotaConfig",
    "DataGoogleProject",
    "MonitoringAlertPolicy",
    "MonitoringDashboard",
    "MonitoringNotificationChannel",
    "MonitoringNotificationChannelSensitiveLabels",
    "alert_structs",
    "budget_structs",
]

# In-cluster platform (cdk/platform.py): cluster credentials, team identities, checkpoint storage.
from cdktf_cdktf_provider_google import storage_bucket as bucket_structs  # noqa: E402
from cdktf_cdktf_provider_google.service_account_iam_member import ServiceAccountIamMember  # noqa: E402
from cdktf_cdktf_provider_google.storage_bucket import StorageBucket  # noqa: E402
from cdktf_cdktf_provider_google.storage_bucket_iam_member import (  # noqa: E402
    StorageBucketIamMember,
    StorageBucketIamMemberCondition,
)

__all__ += [
    "ServiceAccountIamMember",
    "StorageBucket",
    "StorageBucketIamMember",
    "StorageBucketIamMemberCondition",
    "bucket_structs",
]

# Cluster security (cdk/cluster_security.py): Cloud KMS key for Secrets, Binary Authorization policy.
from cdktf_cdktf_provider_google import binary_authorization_policy as binauthz_structs  # noqa: E402
from cdktf_cdktf_provider_google.binary_authorization_policy import BinaryAuthorizationPolicy  # noqa: E402
from cdktf_cdktf_provider_google.kms_crypto_key import KmsCryptoKey  # noqa: E402
from cdktf_cdktf_provider_google.kms_crypto_key_iam_member import KmsCryptoKeyIamMember  # noqa: E402
from cdktf_cdktf_provider_google.kms_key_ring import KmsKeyRing  # noqa: E402

__all__ += ["BinaryAuthorizationPolicy", "KmsCryptoKey", "KmsCryptoKeyIamMember", "KmsKeyRing", "binauthz_structs"]

# APIs enabled per environment (cdk/project_services.py).
from cdktf_cdktf_provider_google.project_service import ProjectService  # noqa: E402

__all__ += ["ProjectService"]
