"""The alert policies an environment gets: which ones apply, their conditions, severity,
channels and on-call documentation. Pure data; ``cdk/alerts.py`` renders it. The shapes are
``alert_shapes.py``; the alert families ``alerts_usage.py`` (idle accelerators, memory) and
``alerts_nodes.py`` (preemption, readiness, scheduling, driver installer).

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

from collections.abc import Sequence

from gke_accel.model.observability.alert_shapes import (
    ALERT_NAMES,
    DEFAULT_SEVERITY,
    DOC_LIMIT,
    DRIVER_DAEMONSET,
    DRIVER_INSTALLER,
    DRIVER_NAMESPACE,
    DUTY_CYCLE,
    GPU_IDLE,
    MEMORY_FULL,
    MEMORY_TOTAL,
    MEMORY_USED,
    NODE_CONDITION_PROMQL,
    NOT_READY,
    PREEMPTIONS,
    TENSORCORE,
    TPU_IDLE,
    UNSCHEDULABLE,
    AlertCondition,
    AlertPlan,
    LogMatchCondition,
    PromqlCondition,
    ThresholdCondition,
    daemonset_driver_pools,
    driver_installer_filter,
    gpu_pools,
    not_ready_query,
    preemption_filter,
    seconds,
    spot_pools,
    tpu_pools,
    unschedulable_filter,
)
from gke_accel.model.observability.alerts_maintenance import maintenance_alerts
from gke_accel.model.observability.alerts_nodes import node_alerts
from gke_accel.model.observability.alerts_usage import usage_alerts
from gke_accel.model.observability.site import ObservedPlan, Site, site_of
from gke_accel.model.observability.spec import MonitoringSpec
from gke_accel.model.pools.node_pool import NodePoolPlan

__all__ = [
    "ALERT_NAMES",
    "DEFAULT_SEVERITY",
    "DOC_LIMIT",
    "DRIVER_DAEMONSET",
    "DRIVER_INSTALLER",
    "DRIVER_NAMESPACE",
    "DUTY_CYCLE",
    "GPU_IDLE",
    "MEMORY_FULL",
    "MEMORY_TOTAL",
    "MEMORY_USED",
    "NODE_CONDITION_PROMQL",
    "NOT_READY",
    "PREEMPTIONS",
    "TENSORCORE",
    "TPU_IDLE",
    "UNSCHEDULABLE",
    "AlertCondition",
    "AlertPlan",
    "LogMatchCondition",
    "PromqlCondition",
    "ThresholdCondition",
    "alerts_for",
    "daemonset_driver_pools",
    "driver_installer_filter",
    "gpu_pools",
    "not_ready_query",
    "plan_alerts",
    "preemption_filter",
    "seconds",
    "spot_pools",
    "tpu_pools",
    "unschedulable_filter",
]


def alerts_for(site: Site, monitoring: MonitoringSpec, pools: Sequence[NodePoolPlan]) -> tuple[AlertPlan, ...]:
    """The alert policies that apply to the environment's pools, with config overrides applied."""
    m = monitoring
    if not m.enabled:
        return ()
    out = []
    found = usage_alerts(site, pools, m.thresholds) + node_alerts(site, pools, m.thresholds)
    found += maintenance_alerts(site, pools, m.thresholds)  # upgrades announced: drain training to a checkpoint
    for alert in found:
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


def plan_alerts(plan: ObservedPlan) -> tuple[AlertPlan, ...]:
    """``alerts_for`` an environment's plan."""
    return alerts_for(site_of(plan), plan.spec.monitoring, plan.pools)
