"""The one place that imports the hashicorp/kubernetes provider bindings of the chosen framework
(each resource from its submodule; see ``_framework.py`` for the choice)."""

from typing import TYPE_CHECKING

from gke_accel.cdk._framework import FRAMEWORK
from gke_accel.frameworks import CDKTN

if TYPE_CHECKING or FRAMEWORK is CDKTN:
    from cdktn_provider_kubernetes.daemon_set_v1 import DaemonSetV1
    from cdktn_provider_kubernetes.limit_range_v1 import LimitRangeV1
    from cdktn_provider_kubernetes.namespace_v1 import NamespaceV1
    from cdktn_provider_kubernetes.network_policy_v1 import NetworkPolicyV1
    from cdktn_provider_kubernetes.priority_class_v1 import PriorityClassV1
    from cdktn_provider_kubernetes.provider import KubernetesProvider, KubernetesProviderExec
    from cdktn_provider_kubernetes.resource_quota_v1 import ResourceQuotaV1
    from cdktn_provider_kubernetes.role_binding_v1 import RoleBindingV1
    from cdktn_provider_kubernetes.role_v1 import RoleV1
    from cdktn_provider_kubernetes.service_account_v1 import ServiceAccountV1
else:
    from cdktf_cdktf_provider_kubernetes.daemon_set_v1 import DaemonSetV1
    from cdktf_cdktf_provider_kubernetes.limit_range_v1 import LimitRangeV1
    from cdktf_cdktf_provider_kubernetes.namespace_v1 import NamespaceV1
    from cdktf_cdktf_provider_kubernetes.network_policy_v1 import NetworkPolicyV1
    from cdktf_cdktf_provider_kubernetes.priority_class_v1 import PriorityClassV1
    from cdktf_cdktf_provider_kubernetes.provider import KubernetesProvider, KubernetesProviderExec
    from cdktf_cdktf_provider_kubernetes.resource_quota_v1 import ResourceQuotaV1
    from cdktf_cdktf_provider_kubernetes.role_binding_v1 import RoleBindingV1
    from cdktf_cdktf_provider_kubernetes.role_v1 import RoleV1
    from cdktf_cdktf_provider_kubernetes.service_account_v1 import ServiceAccountV1

# Kubernetes kind -> typed resource (kubernetes_<kind>_v1): plans need no live cluster.
RESOURCE_BY_KIND = {
    "DaemonSet": DaemonSetV1,
    "LimitRange": LimitRangeV1,
    "Namespace": NamespaceV1,
    "NetworkPolicy": NetworkPolicyV1,
    "PriorityClass": PriorityClassV1,
    "ResourceQuota": ResourceQuotaV1,
    "Role": RoleV1,
    "RoleBinding": RoleBindingV1,
    "ServiceAccount": ServiceAccountV1,
}

__all__ = ["RESOURCE_BY_KIND", "KubernetesProvider", "KubernetesProviderExec"]
