"""The alert for upcoming or starting upgrades of a cluster with accelerator pools, with its runbook:
drain training to a checkpoint before the window.

Signal: GKE's cluster notifications, which GKE writes to Cloud Logging by default ("Cluster
notifications", GKE docs: available, scheduled and started upgrades, end of support). They are log
entries of the cluster (``resource.type="gke_cluster"``) in the log
``container.googleapis.com%2Fnotifications``; the upgrade ones carry the notification types
``UpgradeInfoEvent`` (a scheduled or ongoing upgrade) and ``UpgradeEvent`` (an upgrade started), as in
GKE's Pub/Sub ``type_url`` attribute. Host maintenance of GPU/TPU VMs is announced on the node instead
(labels ``cloud.google.com/scheduled-maintenance-time`` and ``cloud.google.com/active-node-maintenance``,
"Manage GKE node disruption for GPUs and TPUs"): the runbook checks them; no Cloud Monitoring metric
carries them, so they are not an alert condition here.
"""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.observability.alert_shapes import (
    MAINTENANCE,
    AlertCondition,
    AlertPlan,
    LogMatchCondition,
    on_call_doc,
    seconds,
)
from gke_accel.model.observability.site import Site
from gke_accel.model.observability.spec import AlertThresholds
from gke_accel.model.pools.node_pool import POOL_LABEL, NodePoolPlan

NOTIFICATIONS_LOG = "container.googleapis.com%2Fnotifications"
UPGRADE_TYPES = ("UpgradeInfoEvent", "UpgradeEvent")


def upgrade_notification_filter(project: str, cluster: str) -> str:
    types = "|".join(UPGRADE_TYPES)
    return (
        f'resource.type="gke_cluster" AND resource.labels.cluster_name="{cluster}" '
        f'AND logName="projects/{project}/logs/{NOTIFICATIONS_LOG}" '
        f'AND jsonPayload."@type"=~"({types})$"'
    )


def maintenance_alerts(site: Site, pools: Sequence[NodePoolPlan], t: AlertThresholds) -> list[AlertPlan]:
    """One log-match policy when the environment has accelerator pools (the ones that do not live-migrate)."""
    accelerator_pools = [p for p in pools if p.kind != "system"]
    if not accelerator_pools:
        return []
    cluster = site.cluster
    names = [
        p.labels.get(POOL_LABEL, p.name) for p in accelerator_pools if p.lifecycle and p.lifecycle.role == "training"
    ]
    training = list(dict.fromkeys(names))
    pool_names = ", ".join(f"`{p.name}`" for p in accelerator_pools)
    held = f" Training pools: {', '.join(f'`{n}`' for n in training)}." if training else ""
    return [
        AlertPlan(
            MAINTENANCE,
            f"[{site.environment}] Upgrade scheduled or started on a cluster with accelerator pools",
            "WARNING",
            (),
            (
                AlertCondition(
                    "GKE cluster notification: " + " or ".join(UPGRADE_TYPES),
                    matched_log=LogMatchCondition(
                        upgrade_notification_filter(site.project_id, cluster),
                        (("type", 'REGEXP_EXTRACT(jsonPayload."@type", "([A-Za-z]+)$")'),),
                    ),
                ),
            ),
            on_call_doc(
                f"GKE announced or started an upgrade of cluster `{cluster}`. GPUs and TPUs do not live-migrate: "
                f"every node upgrade stops the pods on it, and a multi-host slice loses all its pods when one VM "
                f"goes. Accelerator pools: {pool_names}.{held}",
                [
                    "Read the notification (Logs Explorer, this log entry): what is upgraded (control plane or "
                    "node pool), to which version, and when.",
                    "Before the window: drain training to a checkpoint. Ask running jobs to checkpoint (or wait "
                    "for the next one), then suspend them (`kubectl patch jobset <name> --type merge -p "
                    '\'{"spec":{"suspend":true}}\'`, or the Kueue Workload); they resume with '
                    "`--resume latest` when the pool is back.",
                    "Node upgrades of training pools should be held by the exclusion `gke-accel-training` "
                    "(docs/lifecycle.md): check `gcloud container clusters describe` shows it; if it expired, "
                    "extend it in config and apply before the window.",
                    "Host maintenance of GPU/TPU VMs: `kubectl get nodes -L "
                    "cloud.google.com/scheduled-maintenance-time,cloud.google.com/active-node-maintenance` "
                    "shows the nodes with maintenance due (epoch seconds).",
                    "Inference Deployments keep serving through a rolling drain: their PodDisruptionBudget "
                    "lets one replica go at a time.",
                ],
                site,
            ),
            "Upgrade notice for " + cluster + ": ${log.extracted_label.type}",
            seconds(t.auto_close_seconds),
            rate_limit=seconds(t.log_alert_rate_limit_seconds),
        )
    ]
