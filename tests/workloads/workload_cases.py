"""A test environment with every pool shape the workload rules care about, and hand-written workloads
to mutate (shared by the unit tests here and the e2e tier)."""

from __future__ import annotations

import copy
from typing import Any

from gke_accel.model import EnvironmentPlan, load_environment_text
from helpers import base_config, to_yaml


def workload_env_config() -> dict[str, Any]:
    data = base_config()
    data["tpu_pools"] = [
        {
            "name": "v5e",
            "generation": "v5e",
            "topology": "2x2",
            "zone": "us-central1-a",
            "consumption": "spot",
            "max_slices": 4,
        },
        {
            "name": "v5e-mh",
            "generation": "v5e",
            "topology": "2x4",
            "machine_type": "ct5lp-hightpu-4t",
            "zone": "us-central1-a",
            "max_slices": 2,
        },
    ]
    data["gpu_pools"] = [
        {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2, "consumption": "spot"},
        {"name": "l4x2", "gpu": "l4", "gpus_per_node": 2, "max_nodes": 2},
    ]
    data["cpu_pools"] = [{"name": "cpu", "max_nodes": 2}]  # CPU-only pods (a GPU job asking for 0 GPUs)
    data["teams"] = [
        {
            "name": "nlp",
            "google_group": "nlp@acme.example.com",
            "accelerators": {"v5e": 16, "l4": 4},
            "cpu": 64,
            "memory_gib": 256,
        },
        {
            "name": "vision",
            "google_group": "vision@acme.example.com",
            "accelerators": {"l4": 1},
            "cpu": 8,
            "memory_gib": 32,
            "pods": 3,
            "priority_classes": ["training", "batch"],
        },
    ]
    return data


def workload_env() -> EnvironmentPlan:
    return load_environment_text(to_yaml(workload_env_config()), expected_name="test")


TPU_TOLERATIONS = [
    {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
    {"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
]


def tpu_job() -> dict[str, Any]:
    """A Job that runs on the single-host v5e 2x2 Spot pool, written by hand (not generated)."""
    return copy.deepcopy(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "train", "namespace": "nlp"},
            "spec": {
                "backoffLimit": 3,
                "podFailurePolicy": {
                    "rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]
                },
                "template": {
                    "metadata": {"labels": {"app": "train"}},
                    "spec": {
                        "restartPolicy": "Never",
                        "nodeSelector": {
                            "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                            "cloud.google.com/gke-tpu-topology": "2x2",
                        },
                        "tolerations": copy.deepcopy(TPU_TOLERATIONS),
                        "containers": [
                            {
                                "name": "main",
                                "image": "train:1",
                                "securityContext": {
                                    "allowPrivilegeEscalation": False,
                                    "capabilities": {"drop": ["ALL"]},
                                    "runAsNonRoot": True,
                                    "seccompProfile": {"type": "RuntimeDefault"},
                                },
                                "resources": {
                                    "requests": {"cpu": "4", "memory": "16Gi", "google.com/tpu": "4"},
                                    "limits": {"cpu": "4", "memory": "16Gi", "google.com/tpu": "4"},
                                },
                            }
                        ],
                    },
                },
            },
        }
    )


def gpu_job(gpus: int = 1, namespace: str = "nlp") -> dict[str, Any]:
    job = tpu_job()
    job["metadata"] = {"name": "gpu", "namespace": namespace}
    pod = job["spec"]["template"]["spec"]
    pod["nodeSelector"] = {"cloud.google.com/gke-accelerator": "nvidia-l4"}
    pod["tolerations"] = [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "cloud.google.com/gke-spot", "operator": "Exists"},
    ]
    pod["containers"][0]["resources"] = {"limits": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": str(gpus)}}
    return job


def multi_host_jobset() -> dict[str, Any]:
    """A JobSet for one 2x4 slice on two 4-chip VMs, each child Job on a node pool of its own (JobSet's
    exclusive placement, jobset.sigs.k8s.io/docs/tasks/tpu_multislice)."""
    pod = tpu_job()["spec"]["template"]
    pod["spec"]["nodeSelector"]["cloud.google.com/gke-tpu-topology"] = "2x4"
    pod["spec"]["tolerations"] = [TPU_TOLERATIONS[0]]
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {
            "name": "mh",
            "namespace": "nlp",
            "annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"},
        },
        "spec": {
            "failurePolicy": {
                "maxRestarts": 3,
                "rules": [
                    {
                        "name": "free",
                        "action": "RestartJobSetAndIgnoreMaxRestarts",
                        "onJobFailureReasons": ["PodFailurePolicy"],
                    }
                ],
            },
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": 2,
                            "completions": 2,
                            "completionMode": "Indexed",
                            "backoffLimit": 0,
                            "podFailurePolicy": {
                                "rules": [{"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]
                            },
                            "template": pod,
                        }
                    },
                }
            ],
        },
    }
