"""Every Kubernetes object the platform declares, as plain manifests (API field names).

This is the single source for both outputs: ``gke-accel manifests`` writes these as YAML, and the
constructs turn the same dicts into typed ``kubernetes_*_v1`` resources.
"""

from __future__ import annotations

from typing import Any

from gke_accel.catalog import Catalog, DriverInstallerFacts, load_catalog
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.platform.capacity import accelerator_key
from gke_accel.model.platform.driver_installer import InstallerVariant, installer_skip_annotations, installer_variants
from gke_accel.model.platform.rules import team_namespace, team_service_account_id
from gke_accel.model.platform.spec import TeamSpec
from gke_accel.model.platform.tenancy import TEAM_ROLE, pod_security_labels, team_role_rules
from gke_accel.model.pools.allocatable import GCSFUSE_SIDECAR_CPU_MILLIS, GCSFUSE_SIDECAR_MEMORY_MIB
from gke_accel.model.pools.node_pool import DRIVER_VARIANT_LABEL, GPU_RESOURCE, LABEL_PREFIX, TPU_RESOURCE
from gke_accel.model.queues.of_environment import queue_plan_of

Manifest = dict[str, Any]
MANAGED_BY = {"app.kubernetes.io/managed-by": "gke-accel"}
WORKLOAD_KSA = "workload"
EXTENDED_RESOURCES = (GPU_RESOURCE, TPU_RESOURCE)


def quota_key(resource: str) -> str:
    """ResourceQuota key for an extended resource. Kubernetes honours only the ``requests.``
    prefix for them (``nvidia.com/gpu`` alone is silently ignored), so no other form is produced."""
    assert resource in EXTENDED_RESOURCES, resource
    return f"requests.{resource}"


def gib_quantity(gib: int) -> str:
    """``gib`` GiB as a Kubernetes quantity in the canonical form the API server stores: the largest
    binary suffix that keeps the number whole (4096 GiB is written back as ``4Ti``; writing ``4096Gi``
    would show as a change on every apply and plan)."""
    if gib == 0:
        return "0"
    value, suffix = gib, "Gi"
    for bigger in ("Ti", "Pi", "Ei"):
        if value % 1024:
            break
        value, suffix = value // 1024, bigger
    return f"{value}{suffix}"


def _meta(name: str, namespace: str | None = None, **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {**MANAGED_BY, **labels}}
    if namespace:
        meta["namespace"] = namespace
    return meta


def priority_classes(plan: EnvironmentPlan) -> list[Manifest]:
    pcs = plan.spec.platform.priority_classes
    rows = [
        (pcs.inference, False, "PreemptLowerPriority", "Online inference: may preempt training and batch at peaks"),
        (pcs.training, True, "PreemptLowerPriority", "Training (the default): may preempt batch"),
        (pcs.batch, False, "Never", "Batch and experiments: never preempts, is preempted first"),
    ]
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": _meta(pc.name),
            "value": pc.value,
            # Only the default class says so: the API server drops `globalDefault: false`, and a field
            # it drops would show as a change on every `kubectl apply` and `terraform plan`.
            **({"globalDefault": True} if default else {}),
            "preemptionPolicy": policy,
            "description": text,
        }
        for pc, default, policy, text in rows
    ]


def _per_resource(team: TeamSpec, catalog: Catalog) -> dict[str, int]:
    totals = dict.fromkeys(EXTENDED_RESOURCES, 0)
    for name, amount in team.accelerators.items():
        key = accelerator_key(name, catalog)
        if key is not None:
            totals[key[0]] += amount
    return totals


def team_objects(plan: EnvironmentPlan, team: TeamSpec, catalog: Catalog) -> list[Manifest]:
    ns = team_namespace(team.name, team.namespace)
    gsa = f"{team_service_account_id(team.name, plan.name)}@{plan.spec.project_id}.iam.gserviceaccount.com"
    hard = {"requests.cpu": str(team.cpu), "requests.memory": gib_quantity(team.memory_gib), "pods": str(team.pods)}
    # With Kueue, the ceiling is what Kueue can admit for the team, borrowing included (docs/queues.md).
    queues = queue_plan_of(plan, catalog)
    ceilings = next((t.ceilings for t in queues.teams if t.team == team.name), None) if queues else None
    hard |= {quota_key(r): str(n) for r, n in (ceilings or _per_resource(team, catalog)).items()}
    if ceilings is not None and plan.spec.platform.checkpoints.enabled:
        # Kueue admits by the pod templates; GKE then injects the GCS FUSE sidecar into each pod that
        # mounts the bucket, and this quota counts it: room for one sidecar per accelerator pod Kueue
        # can admit, so an admitted pod is never refused here (model/pools/allocatable.py).
        pods = min(team.pods, sum(ceilings.values()))
        millis = team.cpu * 1000 + pods * GCSFUSE_SIDECAR_CPU_MILLIS
        mib = team.memory_gib * 1024 + pods * GCSFUSE_SIDECAR_MEMORY_MIB
        # the API server's canonical form, so what is stored reads as declared
        hard["requests.cpu"] = str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"
        hard["requests.memory"] = f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"
    objects: list[Manifest] = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": _meta(ns, team=team.name, **pod_security_labels(team, plan.spec.platform.kubernetes_version)),
        },
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": _meta("compute", ns), "spec": {"hard": hard}},
    ]
    defined = plan.spec.platform.priority_classes
    all_classes = [defined.inference.name, defined.training.name, defined.batch.name]
    if team.priority_classes and set(team.priority_classes) != set(all_classes):
        # Pods of any other priority class get a quota of zero pods, so they are rejected.
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": _meta("priority-classes", ns),
                "spec": {
                    "hard": {"pods": "0"},
                    "scopeSelector": {
                        "matchExpressions": [
                            {"scopeName": "PriorityClass", "operator": "NotIn", "values": list(team.priority_classes)}
                        ]
                    },
                },
            }
        )
    # cpu and memory only. No extended resource may appear in a LimitRange (docs/platform.md): Kueue
    # counts a defaulted `nvidia.com/gpu: 0` and injects that flavor's node labels, and GKE's
    # ExtendedResourceToleration tolerates the taint of every resource a container *names*, so a
    # zero default lets CPU pods onto accelerator nodes; a bare `max` is defaulted into `default`.
    # Accelerators per pod are capped by the ResourceQuota and, with queues, by Kueue.
    container: dict[str, Any] = {
        "type": "Container",
        "default": {"cpu": "1", "memory": "2Gi"},
        "defaultRequest": {"cpu": "250m", "memory": "512Mi"},
    }
    objects += [
        {"apiVersion": "v1", "kind": "LimitRange", "metadata": _meta("defaults", ns), "spec": {"limits": [container]}},
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {**_meta(WORKLOAD_KSA, ns), "annotations": {"iam.gke.io/gcp-service-account": gsa}},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": _meta(TEAM_ROLE, ns),
            "rules": team_role_rules(),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": _meta(TEAM_ROLE, ns),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": TEAM_ROLE},
            "subjects": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": team.google_group}],
        },
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": _meta("default-deny-ingress", ns),
            "spec": {
                "podSelector": {},
                "policyTypes": ["Ingress"],
                "ingress": [
                    {
                        "from": [
                            {"podSelector": {}},  # pods of the same namespace
                            {
                                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gmp-system"}}
                            },  # metrics
                        ]
                    }
                ],
            },
        },
    ]
    return objects


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


def driver_installers(plan: EnvironmentPlan, catalog: Catalog) -> list[Manifest]:
    facts = catalog.driver_installer
    variants = installer_variants(plan.spec.gpu_pools)
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


def platform_manifests(plan: EnvironmentPlan, catalog: Catalog | None = None) -> list[Manifest]:
    """All Kubernetes objects of the environment: priority classes, each team's objects, and the
    driver installer DaemonSets."""
    catalog = catalog or load_catalog()
    objects = priority_classes(plan)
    for team in plan.spec.teams:
        objects += team_objects(plan, team, catalog)
    return objects + driver_installers(plan, catalog)
