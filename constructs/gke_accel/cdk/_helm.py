"""The one place that imports the hashicorp/helm provider bindings of the chosen framework (see
``_framework.py`` for the choice)."""

from typing import TYPE_CHECKING

from gke_accel.cdk._framework import FRAMEWORK
from gke_accel.frameworks import CDKTN

if TYPE_CHECKING or FRAMEWORK is CDKTN:
    from cdktn_provider_helm.provider import HelmProvider, HelmProviderKubernetes, HelmProviderKubernetesExec
    from cdktn_provider_helm.release import Release
else:
    from cdktf_cdktf_provider_helm.provider import HelmProvider, HelmProviderKubernetes, HelmProviderKubernetesExec
    from cdktf_cdktf_provider_helm.release import Release

__all__ = ["HelmProvider", "HelmProviderKubernetes", "HelmProviderKubernetesExec", "Release"]
