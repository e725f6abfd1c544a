"""The one place that imports the helm provider bindings (each from its own submodule)."""

from cdktf_cdktf_provider_helm.provider import HelmProvider, HelmProviderKubernetes, HelmProviderKubernetesExec
from cdktf_cdktf_provider_helm.release import Release

__all__ = ["HelmProvider", "HelmProviderKubernetes", "HelmProviderKubernetesExec", "Release"]
