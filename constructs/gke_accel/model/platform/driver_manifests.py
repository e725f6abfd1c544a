"""The NVIDIA driver installer DaemonSets (one per installer variant), as plain manifests, for GPU
pools with ``driver_mode: daemonset``: GKE's COS and Ubuntu installer pods, pinned to the nodes
where GKE does not manage the driver."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_accel.catalog import Catalog, DriverInstallerFacts
from gke_accel.model.platform.driver_installer import InstallerVariant, installer_skip_annotations, installer_variants
from gke_accel.model.pools.node_pool import DRIVER_VARIANT_LABEL, LABEL_PREFIX
from gke_accel.model.pools.spec import GpuPoolSpec
from gke_accel.model.teams.manifests import Manifest
from gke_accel.model.teams.manifests import meta as _meta


def _node_affinity(variant: InstallerVariant) -> dict[str, Any]:
    # Only nodes where GKE does not manage the driver: the label is absent, or GKE reports its own
    # installer "disabled" (newer installer manifests match both); and only this variant's pools.
    own = {"key": DRIVER_VARIANT_LABEL, "operator": "In", "values": [variant.key]}
    accel = {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"}
    terms = [
        {
            "matchExpressions": [
                accel,
                {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "DoesNotExist"},
                own,
            ]
        },
        {
            "matchExpressions": [
                accel,
                {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "In", "values": ["disabled"]},
                own,
            ]
        },
    ]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def _host_volume(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "hostPath": {"path": path}}


def _cos_pod(variant: InstallerVariant, facts: DriverInstallerFacts) -> dict[str, Any]:
    install = "/cos-gpu-installer install" + (" --version=latest" if variant.version == "latest" else "")
    script = f"if lsmod | grep nvidia; then exit 0; else {install} || exit 1; fi"
    if variant.version == "latest":
        script += "; chmod 755 /root/home/kubernetes/bin/nvidia"
    env = {
        "NVIDIA_INSTALL_DIR_HOST": "/home/kubernetes/bin/nvidia",
        "NVIDIA_INSTALL_DIR_CONTAINER": "/usr/local/nvidia",
        "VULKAN_ICD_DIR_HOST": "/home/kubernetes/bin/nvidia/vulkan/icd.d",
        "VULKAN_ICD_DIR_CONTAINER": "/etc/vulkan/icd.d",
        "ROOT_MOUNT_DIR": "/root",
        "COS_TOOLS_DIR_HOST": "/var/lib/cos-tools",
        "COS_TOOLS_DIR_CONTAINER": "/build/cos-tools",
    }
    init = [
        {
            "name": "nvidia-driver-installer",
            "image": facts.cos_installer_image,
            "imagePullPolicy": "Never",
            "command": ["bash", "-c", script],
            "resources": {"requests": {"cpu": "150m"}},
            "securityContext": {"privileged": True},
            "env": [{"name": k, "value": v} for k, v in env.items()],
            "volumeMounts": [
                {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"},
                {"name": "vulkan-icd-mount", "mountPath": "/etc/vulkan/icd.d"},
                {"name": "dev", "mountPath": "/dev"},
                {"name": "root-mount", "mountPath": "/root"},
                {"name": "cos-tools", "mountPath": "/build/cos-tools"},
            ],
        }
    ]
    if variant.partition:
        init.append(
            {
                "name": "partition-gpus",
                "image": facts.partition_image,
                "env": [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}],
                "resources": {"requests": {"cpu": "150m"}},
                "securityContext": {"privileged": True},
                "volumeMounts": [
                    {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"},
                    {"name": "dev", "mountPath": "/dev"},
                    {"name": "nvidia-config", "mountPath": "/etc/nvidia"},
                ],
            }
        )
    return {
        "hostNetwork": True,
        "hostPID": True,
        "initContainers": init,
        "volumes": [
            _host_volume("dev", "/dev"),
            _host_volume("vulkan-icd-mount", "/home/kubernetes/bin/nvidia/vulkan/icd.d"),
            _host_volume("nvidia-install-dir-host", "/home/kubernetes/bin/nvidia"),
            _host_volume("root-mount", "/"),
            _host_volume("cos-tools", "/var/lib/cos-tools"),
            _host_volume("nvidia-config", "/etc/nvidia"),
        ],
    }


def _ubuntu_pod(variant: InstallerVariant, facts: DriverInstallerFacts) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "nvidia-driver-installer",
        "image": facts.ubuntu_installer_image,
        "imagePullPolicy": "Never",
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "boot", "mountPath": "/boot"},
            {"name": "dev", "mountPath": "/dev"},
            {"name": "root-mount", "mountPath": "/root"},
        ],
    }
    if variant.version in facts.ubuntu_pinned:
        container["env"] = [{"name": "NVIDIA_DRIVER_VERSION", "value": facts.ubuntu_pinned[variant.version]}]
    return {
        "initContainers": [container],
        "volumes": [_host_volume("dev", "/dev"), _host_volume("boot", "/boot"), _host_volume("root-mount", "/")],
    }


def driver_installers(gpu_pools: Sequence[GpuPoolSpec], catalog: Catalog) -> list[Manifest]:
    facts = catalog.driver_installer
    variants = installer_variants(gpu_pools)
    objects = []
    for variant in variants:
        name = facts.name if len(variants) == 1 else f"{facts.name}-{variant.key}"
        selector = {"k8s-app": name}
        pod = _cos_pod(variant, facts) if variant.os == "cos" else _ubuntu_pod(variant, facts)
        pod |= {
            "automountServiceAccountToken": False,  # the installer never calls the API server
            "priorityClassName": facts.priority_class,
            "affinity": _node_affinity(variant),
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "pause", "image": facts.pause_image}],
        }
        objects.append(
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": {
                    **_meta(name, facts.namespace, **selector, **{f"{LABEL_PREFIX}/driver-variant": variant.key}),
                    "annotations": installer_skip_annotations(),
                },
                "spec": {
                    "selector": {"matchLabels": selector},
                    "updateStrategy": {"type": "RollingUpdate"},
                    "template": {"metadata": {"labels": {"name": name, **selector}}, "spec": pod},
                },
            }
        )
    return objects
