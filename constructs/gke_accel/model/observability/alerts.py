"""The alert policies an environment gets: which ones apply, their conditions, severity,
channels and on-call documentation. Pure data; ``cdk/alerts.py`` renders it.

Facts (metric types, labels, log filters, schema constraints) are from
``../shared/reference/monitoring-quotas.md`` (§1, §2); confidence noted per alert:

- GPU/TPU duty cycle, TensorCore utilization, memory_used/memory_total on ``k8s_container``:
  GKE system metrics [doc/code]; the GPU filter ``metric.label."make"!="cloud-tpu"`` is the one
  in Google's sample ``alerts/google-gke/gpu-processing-utilization-for-jobset.v1.json``.
- Spot preemption: the audit system-event filter ``protoPayload.methodName="compute.instances.preempted"``
  [doc: compute preemptible-history sample], scoped by instance-name prefix ``gke-<cluster>-`` as
  the reference recommends. GKE shortens long cluster names in instance names: with a cluster
  name over ~15 characters the prefix may not match (UNVERIFIED, see docs/observability.md).
- Node not ready: ``kubernetes.io/node/status_condition`` [doc: GKE GPU/TPU node-health pages,
  GKE >= 1.32.1-gke.1357001]. Its value type and the case of the ``status`` label were not
  confirmed, so the condition is PromQL (bools read as 0/1) with a case-insensitive match. The
  metric has no node-pool label, so the alert covers every node of the cluster.
- FailedScheduling: the reason filter is Google's sample
  ``alerts/google-gke/failedscheduling-log-event-within-cluster.v1.json``; the message regex is
  kube-scheduler's standard "Insufficient <resource>" text.
- Driver installer: Kubernetes events (BackOff, Failed, FailedScheduling, FailedMount) of the
  ``nvidia-driver-installer-*`` pods in ``kube-system``: a pod that cannot run emits them.
  Kube-state-metrics (``kube_daemonset_status_number_unavailable``) would be the metric form,
  but the cluster does not enable that package.

Schema rules respected (MM ``AlertPolicy.yaml``): a ``condition_matched_log`` is the only
condition of its policy and the policy has ``alert_strategy.notification_rate_limit``; threshold
conditions always set ``comparison`` and ``duration``; alignment periods are >= 60 s; PromQL
evaluation intervals are multiples of 30 s; documentation is markdown under 8,192 characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gke_accel.model.observability.maintenance_alert import MAINTENANCE, maintenance_alerts
from gke_accel.model.observability.spec import AlertThresholds, Severity
from gke_accel.model.pools.node_pool import NodePoolPlan

if TYPE_CHECKING:  # environment imports the rules, which import the alert names from here
    from gke_accel.model.environment.plan import EnvironmentPlan

GPU_IDLE = "gpu_idle"
TPU_IDLE = "tpu_idle"
MEMORY_FULL = "accelerator_memory_full"
PREEMPTIONS = "spot_preemptions"
NOT_READY = "nodes_not_ready"
UNSCHEDULABLE = "accelerator_unschedulable"
DRIVER_INSTALLER = "gpu_driver_installer"
ALERT_NAMES = (GPU_IDLE, TPU_IDLE, MEMORY_FULL, PREEMPTIONS, NOT_READY, UNSCHEDULABLE, DRIVER_INSTALLER, MAINTENANCE)

DEFAULT_SEVERITY: dict[str, Severity] = {
    GPU_IDLE: "WARNING",
    TPU_IDLE: "WARNING",
    MEMORY_FULL: "WARNING",
    PREEMPTIONS: "WARNING",
    NOT_READY: "ERROR",
    UNSCHEDULABLE: "WARNING",
    DRIVER_INSTALLER: "ERROR",
    MAINTENANCE: "WARNING",  # model/observability/maintenance_alert.py
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


def _cluster(plan: EnvironmentPlan) -> str:
    return plan.cluster.spec.name


def _pools(pools: list[NodePoolPlan]) -> str:
    return ", ".join(f"`{p.name}`" for p in pools)


def _container_filter(metric: str, cluster: str, extra: str = "") -> str:
    text = f'resource.type="k8s_container" AND metric.type="{metric}"'
    if extra:
        text += f" AND {extra}"
    return text + f' AND resource.labels.cluster_name="{cluster}"'


def _doc(meaning: str, first: list[str], plan: EnvironmentPlan) -> str:
    c = plan.cluster.spec
    steps = "\n".join(f"{i}. {s}" for i, s in enumerate(first, 1))
    return (
        f"## What it means\n{meaning}\n\n## What to check first\n{steps}\n\n"
        f"Cluster `{c.name}` ({c.location}), project `{plan.spec.project_id}`, environment "
        f"`{plan.name}`. Get credentials: `gcloud container clusters get-credentials {c.name} "
        f"--location {c.location} --project {plan.spec.project_id}`."
    )


def gpu_pools(plan: EnvironmentPlan) -> list[NodePoolPlan]:
    return [p for p in plan.pools if p.kind == "gpu"]


def tpu_pools(plan: EnvironmentPlan) -> list[NodePoolPlan]:
    return [p for p in plan.pools if p.kind == "tpu"]


def spot_pools(plan: EnvironmentPlan) -> list[NodePoolPlan]:
    return [p for p in plan.pools if p.spot]


def daemonset_driver_pools(plan: EnvironmentPlan) -> list[NodePoolPlan]:
    return [p for p in plan.pools if p.kind == "gpu" and p.driver_mode == "daemonset"]


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


def _alignment(duration_s: int) -> str:
    """A window that smooths 60 s samples without hiding the whole duration: 5 min, or less."""
    return seconds(max(60, min(300, duration_s)))


def _candidates(plan: EnvironmentPlan, t: AlertThresholds) -> list[AlertPlan]:
    cluster = _cluster(plan)
    gpus, tpus, spots, drivers = gpu_pools(plan), tpu_pools(plan), spot_pools(plan), daemonset_driver_pools(plan)
    close = seconds(t.auto_close_seconds)
    rate = seconds(t.log_alert_rate_limit_seconds)
    out: list[AlertPlan] = []
    if gpus:
        out.append(
            AlertPlan(
                GPU_IDLE,
                f"[{plan.name}] GPUs allocated but idle",
                "WARNING",
                (),
                (
                    AlertCondition(
                        f"GPU duty cycle < {t.gpu_idle_percent:g}% for {t.gpu_idle_duration_seconds}s",
                        threshold=ThresholdCondition(
                            filter=_container_filter(DUTY_CYCLE, cluster, 'metric.label."make"!="cloud-tpu"'),
                            comparison="COMPARISON_LT",
                            threshold_value=t.gpu_idle_percent,
                            duration=seconds(t.gpu_idle_duration_seconds),
                            alignment_period=_alignment(t.gpu_idle_duration_seconds),
                            per_series_aligner="ALIGN_MEAN",
                        ),
                    ),
                ),
                _doc(
                    f"A container holds GPUs (pools {_pools(gpus)}) but their duty cycle stayed below "
                    f"{t.gpu_idle_percent:g}% for {t.gpu_idle_duration_seconds // 60} minutes. The "
                    "metric only exists for containers that were allocated GPUs, so this is paid "
                    "capacity doing nothing.",
                    [
                        "Find the pod in the incident's `pod_name` label; `kubectl -n <ns> logs <pod>`: "
                        "is it stuck (data loading, a deadlock, waiting on a peer)?",
                        "If it is a notebook or a finished job holding its GPUs, ask the owner to stop it.",
                        "If a pool sits idle at its minimum size, consider lowering `min_nodes`.",
                    ],
                    plan,
                ),
                "GPUs idle in ${resource.label.pod_name}",
                close,
            )
        )
    if tpus:
        out.append(
            AlertPlan(
                TPU_IDLE,
                f"[{plan.name}] TPUs allocated but idle",
                "WARNING",
                (),
                (
                    AlertCondition(
                        f"TensorCore utilization < {t.tpu_idle_percent:g}% for {t.tpu_idle_duration_seconds}s",
                        threshold=ThresholdCondition(
                            filter=_container_filter(TENSORCORE, cluster),
                            comparison="COMPARISON_LT",
                            threshold_value=t.tpu_idle_percent,
                            duration=seconds(t.tpu_idle_duration_seconds),
                            alignment_period=_alignment(t.tpu_idle_duration_seconds),
                            per_series_aligner="ALIGN_MEAN",
                        ),
                    ),
                ),
                _doc(
                    f"A container holds TPU chips (pools {_pools(tpus)}) but their TensorCore "
                    f"utilization stayed below {t.tpu_idle_percent:g}% for "
                    f"{t.tpu_idle_duration_seconds // 60} minutes.",
                    [
                        "Find the pod in the incident's `pod_name` label and read its logs: compilation, "
                        "input pipeline stalls and multislice peers that never joined all look like this.",
                        "For a multi-host slice, check that every worker pod of the JobSet is Running.",
                        "If the slice is reserved but unused, scale the workload down or free the slice.",
                    ],
                    plan,
                ),
                "TPUs idle in ${resource.label.pod_name}",
                close,
            )
        )
    if gpus or tpus:
        ratio = t.memory_full_percent / 100
        out.append(
            AlertPlan(
                MEMORY_FULL,
                f"[{plan.name}] Accelerator memory nearly full",
                "WARNING",
                (),
                (
                    AlertCondition(
                        f"accelerator memory used / total > {t.memory_full_percent:g}% for "
                        f"{t.memory_full_duration_seconds}s",
                        threshold=ThresholdCondition(
                            filter=_container_filter(MEMORY_USED, cluster),
                            denominator_filter=_container_filter(MEMORY_TOTAL, cluster),
                            comparison="COMPARISON_GT",
                            threshold_value=round(ratio, 6),
                            duration=seconds(t.memory_full_duration_seconds),
                            alignment_period=_alignment(t.memory_full_duration_seconds),
                            per_series_aligner="ALIGN_MEAN",
                        ),
                    ),
                ),
                _doc(
                    f"An accelerator's memory (GPU framebuffer or TPU HBM) stayed above "
                    f"{t.memory_full_percent:g}% for {t.memory_full_duration_seconds // 60} minutes. The "
                    "next allocation may fail with an out-of-memory error.",
                    [
                        "Frameworks that preallocate (JAX, TensorFlow) show near-full memory by design: "
                        "check the pod's logs for OOM / RESOURCE_EXHAUSTED before acting.",
                        "Otherwise reduce the batch size or sequence length, or shard the model further.",
                        "With GPU time-sharing or MPS, check that the sharing clients fit in memory together.",
                    ],
                    plan,
                ),
                "Accelerator memory nearly full in ${resource.label.pod_name}",
                close,
            )
        )
    if spots:
        out.append(
            AlertPlan(
                PREEMPTIONS,
                f"[{plan.name}] Spot VMs preempted",
                "WARNING",
                (),
                (
                    AlertCondition(
                        "compute.instances.preempted for a node of this cluster",
                        matched_log=LogMatchCondition(
                            preemption_filter(cluster),
                            (("instance", 'REGEXP_EXTRACT(protoPayload.resourceName, "instances/([^/]+)$")'),),
                        ),
                    ),
                ),
                _doc(
                    f"Compute Engine reclaimed a Spot VM of pools {_pools(spots)}. Pods on it got about "
                    "15 seconds to stop; the node pool will try to replace the node. At most one "
                    f"notification per {t.log_alert_rate_limit_seconds // 60} minutes is sent.",
                    [
                        "Check that the interrupted jobs restarted from a checkpoint (JobSet/Kueue re-queue).",
                        "Many preemptions in one zone: spread the pool over more zones, or move "
                        "latency-sensitive work to on-demand or reserved capacity.",
                        "See the dashboard's preemption panel for the rate over time.",
                    ],
                    plan,
                ),
                "Spot VM preempted: ${log.extracted_label.instance}",
                close,
                rate_limit=rate,
            )
        )
    if plan.pools:
        out.append(
            AlertPlan(
                NOT_READY,
                f"[{plan.name}] Nodes not ready",
                "ERROR",
                (),
                (
                    AlertCondition(
                        f"node Ready condition False/Unknown for {t.not_ready_duration_seconds}s",
                        promql=PromqlCondition(
                            not_ready_query(cluster), duration=seconds(t.not_ready_duration_seconds)
                        ),
                    ),
                ),
                _doc(
                    f"A node of cluster `{cluster}` has not been Ready for "
                    f"{t.not_ready_duration_seconds // 60} minutes. Accelerator pools: "
                    f"{_pools(list(plan.pools))}. (The node metric carries no pool label, so system "
                    "nodes are covered too.)",
                    [
                        "`kubectl describe node <node_name>`: read Conditions and recent events.",
                        "GPU nodes: is the driver installed (`nvidia.com/gpu` allocatable > 0)? TPU nodes: "
                        "is the slice complete (multi-host slices need every VM)?",
                        "Host maintenance or a repair in progress shows as a node event; a stuck node can "
                        "be drained and deleted so the pool recreates it.",
                    ],
                    plan,
                ),
                "Node ${metric.label.node_name} not ready",
                close,
            )
        )
    resources = (["nvidia.com/gpu"] if gpus else []) + (["google.com/tpu"] if tpus else [])
    if resources:
        out.append(
            AlertPlan(
                UNSCHEDULABLE,
                f"[{plan.name}] Pods unschedulable for lack of accelerators",
                "WARNING",
                (),
                (
                    AlertCondition(
                        "FailedScheduling: Insufficient " + " or ".join(resources),
                        matched_log=LogMatchCondition(
                            unschedulable_filter(cluster, resources),
                            (
                                ("namespace", "EXTRACT(resource.labels.namespace_name)"),
                                ("pod", "EXTRACT(resource.labels.pod_name)"),
                            ),
                        ),
                    ),
                ),
                _doc(
                    "The scheduler could not place a pod because no node has free "
                    + " / ".join(f"`{r}`" for r in resources)
                    + ". One event while a pool scales up from zero is normal; repeated events mean the "
                    "pools are at their maximum, out of quota or out of capacity.",
                    [
                        "`kubectl -n <namespace> describe pod <pod>`: did the cluster autoscaler "
                        "trigger a scale-up (TriggeredScaleUp) or give up (NotTriggerScaleUp)?",
                        "Check the autoscaler visibility log for `scale.up.error.out.of.resources` or "
                        "`scale.up.error.quota.exceeded`; compare with `gke-accel synth`'s quota section.",
                        "At max size: raise `max_nodes`/`max_slices`, or queue the work (Kueue).",
                    ],
                    plan,
                ),
                "Pod ${log.extracted_label.namespace}/${log.extracted_label.pod} unschedulable",
                close,
                rate_limit=rate,
            )
        )
    if drivers:
        out.append(
            AlertPlan(
                DRIVER_INSTALLER,
                f"[{plan.name}] NVIDIA driver installer pods not running",
                "ERROR",
                (),
                (
                    AlertCondition(
                        f"{DRIVER_NAMESPACE}/{DRIVER_DAEMONSET} pod events BackOff/Failed",
                        matched_log=LogMatchCondition(
                            driver_installer_filter(cluster), (("pod", "EXTRACT(resource.labels.pod_name)"),)
                        ),
                    ),
                ),
                _doc(
                    f"A pod of DaemonSet `{DRIVER_NAMESPACE}/{DRIVER_DAEMONSET}` (label "
                    f"`k8s-app: {DRIVER_DAEMONSET}`) cannot run, so GPUs of pools {_pools(drivers)} get "
                    "no driver and stay unallocatable.",
                    [
                        f"`kubectl -n {DRIVER_NAMESPACE} get pods -l k8s-app={DRIVER_DAEMONSET} -o wide`; "
                        "then `kubectl logs <pod> -c nvidia-driver-installer` (an init container).",
                        "Image pull errors: check the node's access to the driver image registry (Cloud NAT).",
                        "A driver version that does not match the node image: pin a supported version "
                        "or switch the pool to `driver_mode: gke-managed`.",
                    ],
                    plan,
                ),
                "Driver installer failing: ${log.extracted_label.pod}",
                close,
                rate_limit=rate,
            )
        )
    out += maintenance_alerts(plan, t)  # upgrades announced: drain training to a checkpoint
    return out


def plan_alerts(plan: EnvironmentPlan) -> tuple[AlertPlan, ...]:
    """The alert policies that apply to the environment's pools, with config overrides applied."""
    m = plan.spec.monitoring
    if not m.enabled:
        return ()
    out = []
    for alert in _candidates(plan, m.thresholds):
        if alert.name in m.disabled_alerts:
            continue
        severity = m.severity.get(alert.name, DEFAULT_SEVERITY[alert.name])
        channels = m.routes.get(alert.name, m.alert_channels)
        out.append(
            AlertPlan(
                alert.name,
                alert.display_name,
                severity,
                tuple(channels),
                alert.conditions,
                alert.documentation[:DOC_LIMIT],
                alert.subject,
                alert.auto_close,
                alert.rate_limit,
                alert.combiner,
            )
        )
    return tuple(out)
