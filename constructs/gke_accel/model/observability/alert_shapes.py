"""The shapes of an alert policy (conditions, the policy itself), the alert names with their default
severities, the metric types and log filters the alert families use, and the on-call text every
policy carries. Facts and their sources: ``alerts.py``'s docstring."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_accel.model.observability.site import Site
from gke_accel.model.observability.spec import Severity
from gke_accel.model.pools.node_pool import NodePoolPlan

GPU_IDLE = "gpu_idle"
TPU_IDLE = "tpu_idle"
MEMORY_FULL = "accelerator_memory_full"
PREEMPTIONS = "spot_preemptions"
NOT_READY = "nodes_not_ready"
UNSCHEDULABLE = "accelerator_unschedulable"
DRIVER_INSTALLER = "gpu_driver_installer"
MAINTENANCE = "upcoming_maintenance"  # alerts_maintenance.py
ALERT_NAMES = (GPU_IDLE, TPU_IDLE, MEMORY_FULL, PREEMPTIONS, NOT_READY, UNSCHEDULABLE, DRIVER_INSTALLER, MAINTENANCE)

DEFAULT_SEVERITY: dict[str, Severity] = {
    GPU_IDLE: "WARNING",
    TPU_IDLE: "WARNING",
    MEMORY_FULL: "WARNING",
    PREEMPTIONS: "WARNING",
    NOT_READY: "ERROR",
    UNSCHEDULABLE: "WARNING",
    DRIVER_INSTALLER: "ERROR",
    MAINTENANCE: "WARNING",
}

# Metric types (reference §1.1, §1.3)
DUTY_CYCLE = "kubernetes.io/container/accelerator/duty_cycle"
TENSORCORE = "kubernetes.io/container/accelerator/tensorcore_utilization"
MEMORY_USED = "kubernetes.io/container/accelerator/memory_used"
MEMORY_TOTAL = "kubernetes.io/container/accelerator/memory_total"
NODE_CONDITION_PROMQL = "kubernetes_io:node_status_condition"

DRIVER_NAMESPACE = "kube-system"
DRIVER_DAEMONSET = "nvidia-driver-installer"  # label k8s-app: nvidia-driver-installer
DOC_LIMIT = 8192


def seconds(value: int) -> str:
    """A whole number of seconds as a protobuf Duration string: ``3600`` -> ``"3600s"``."""
    return f"{value}s"


@dataclass(frozen=True)
class ThresholdCondition:
    filter: str
    comparison: str
    threshold_value: float
    duration: str
    alignment_period: str
    per_series_aligner: str
    cross_series_reducer: str = "REDUCE_NONE"
    denominator_filter: str | None = None
    evaluation_missing_data: str = "EVALUATION_MISSING_DATA_INACTIVE"


@dataclass(frozen=True)
class PromqlCondition:
    query: str
    duration: str
    evaluation_interval: str = "60s"


@dataclass(frozen=True)
class LogMatchCondition:
    filter: str
    label_extractors: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class AlertCondition:
    display_name: str
    threshold: ThresholdCondition | None = None
    promql: PromqlCondition | None = None
    matched_log: LogMatchCondition | None = None


@dataclass(frozen=True)
class AlertPlan:
    name: str
    display_name: str
    severity: Severity
    channels: tuple[str, ...]
    conditions: tuple[AlertCondition, ...]
    documentation: str
    subject: str
    auto_close: str
    rate_limit: str | None = None  # set exactly for log-match policies
    combiner: str = "OR"

    @property
    def log_based(self) -> bool:
        return any(c.matched_log is not None for c in self.conditions)


def pool_list(pools: Sequence[NodePoolPlan]) -> str:
    return ", ".join(f"`{p.name}`" for p in pools)


def container_filter(metric: str, cluster: str, extra: str = "") -> str:
    text = f'resource.type="k8s_container" AND metric.type="{metric}"'
    if extra:
        text += f" AND {extra}"
    return text + f' AND resource.labels.cluster_name="{cluster}"'


def on_call_doc(meaning: str, first: list[str], site: Site) -> str:
    steps = "\n".join(f"{i}. {s}" for i, s in enumerate(first, 1))
    return (
        f"## What it means\n{meaning}\n\n## What to check first\n{steps}\n\n"
        f"Cluster `{site.cluster}` ({site.location}), project `{site.project_id}`, environment "
        f"`{site.environment}`. Get credentials: `gcloud container clusters get-credentials {site.cluster} "
        f"--location {site.location} --project {site.project_id}`."
    )


def gpu_pools(pools: Sequence[NodePoolPlan]) -> list[NodePoolPlan]:
    return [p for p in pools if p.kind == "gpu"]


def tpu_pools(pools: Sequence[NodePoolPlan]) -> list[NodePoolPlan]:
    return [p for p in pools if p.kind == "tpu"]


def spot_pools(pools: Sequence[NodePoolPlan]) -> list[NodePoolPlan]:
    return [p for p in pools if p.spot]


def daemonset_driver_pools(pools: Sequence[NodePoolPlan]) -> list[NodePoolPlan]:
    return [p for p in pools if p.kind == "gpu" and p.driver_mode == "daemonset"]


def preemption_filter(cluster: str) -> str:
    return (
        'resource.type="gce_instance" AND protoPayload.methodName="compute.instances.preempted" '
        f'AND protoPayload.resourceName=~"gke-{cluster}-"'
    )


def unschedulable_filter(cluster: str, resources: list[str]) -> str:
    alternatives = "|".join(resources)
    wanted = f"({alternatives})" if len(resources) > 1 else alternatives
    return (
        f'resource.type="k8s_pod" AND resource.labels.cluster_name="{cluster}" '
        f'AND jsonPayload.reason="FailedScheduling" AND jsonPayload.message=~"Insufficient {wanted}"'
    )


def driver_installer_filter(cluster: str) -> str:
    return (
        f'resource.type="k8s_pod" AND resource.labels.cluster_name="{cluster}" '
        f'AND resource.labels.namespace_name="{DRIVER_NAMESPACE}" '
        f'AND resource.labels.pod_name=~"^{DRIVER_DAEMONSET}-" '
        'AND jsonPayload.reason=("BackOff" OR "Failed" OR "FailedScheduling" OR "FailedMount")'
    )


def not_ready_query(cluster: str) -> str:
    return (
        f'max by (node_name) ({NODE_CONDITION_PROMQL}{{monitored_resource="k8s_node", cluster_name="{cluster}", '
        'condition="Ready", status=~"(?i)false|unknown"}) > 0'
    )


def alignment(duration_s: int) -> str:
    """A window that smooths 60 s samples without hiding the whole duration: 5 min, or less."""
    return seconds(max(60, min(300, duration_s)))
