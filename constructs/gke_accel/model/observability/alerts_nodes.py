"""The node alerts: Spot VMs preempted, nodes not ready, pods unschedulable for lack of accelerators,
NVIDIA driver installer pods not running."""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.observability.alert_shapes import (
    DRIVER_DAEMONSET,
    DRIVER_INSTALLER,
    DRIVER_NAMESPACE,
    NOT_READY,
    PREEMPTIONS,
    UNSCHEDULABLE,
    AlertCondition,
    AlertPlan,
    LogMatchCondition,
    PromqlCondition,
    daemonset_driver_pools,
    driver_installer_filter,
    gpu_pools,
    not_ready_query,
    on_call_doc,
    pool_list,
    preemption_filter,
    seconds,
    spot_pools,
    tpu_pools,
    unschedulable_filter,
)
from gke_accel.model.observability.site import Site
from gke_accel.model.observability.spec import AlertThresholds
from gke_accel.model.pools.node_pool import NodePoolPlan


def node_alerts(site: Site, pools: Sequence[NodePoolPlan], t: AlertThresholds) -> list[AlertPlan]:
    cluster = site.cluster
    gpus, tpus = gpu_pools(pools), tpu_pools(pools)
    spots, drivers = spot_pools(pools), daemonset_driver_pools(pools)
    rate = seconds(t.log_alert_rate_limit_seconds)
    close = seconds(t.auto_close_seconds)
    out: list[AlertPlan] = []
    if spots:
        out.append(
            AlertPlan(
                PREEMPTIONS,
                f"[{site.environment}] Spot VMs preempted",
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
                on_call_doc(
                    f"Compute Engine reclaimed a Spot VM of pools {pool_list(spots)}. Pods on it got about "
                    "15 seconds to stop; the node pool will try to replace the node. At most one "
                    f"notification per {t.log_alert_rate_limit_seconds // 60} minutes is sent.",
                    [
                        "Check that the interrupted jobs restarted from a checkpoint (JobSet/Kueue re-queue).",
                        "Many preemptions in one zone: spread the pool over more zones, or move "
                        "latency-sensitive work to on-demand or reserved capacity.",
                        "See the dashboard's preemption panel for the rate over time.",
                    ],
                    site,
                ),
                "Spot VM preempted: ${log.extracted_label.instance}",
                close,
                rate_limit=rate,
            )
        )
    if pools:
        out.append(
            AlertPlan(
                NOT_READY,
                f"[{site.environment}] Nodes not ready",
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
                on_call_doc(
                    f"A node of cluster `{cluster}` has not been Ready for "
                    f"{t.not_ready_duration_seconds // 60} minutes. Accelerator pools: "
                    f"{pool_list(list(pools))}. (The node metric carries no pool label, so system "
                    "nodes are covered too.)",
                    [
                        "`kubectl describe node <node_name>`: read Conditions and recent events.",
                        "GPU nodes: is the driver installed (`nvidia.com/gpu` allocatable > 0)? TPU nodes: "
                        "is the slice complete (multi-host slices need every VM)?",
                        "Host maintenance or a repair in progress shows as a node event; a stuck node can "
                        "be drained and deleted so the pool recreates it.",
                    ],
                    site,
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
                f"[{site.environment}] Pods unschedulable for lack of accelerators",
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
                on_call_doc(
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
                    site,
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
                f"[{site.environment}] NVIDIA driver installer pods not running",
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
                on_call_doc(
                    f"A pod of DaemonSet `{DRIVER_NAMESPACE}/{DRIVER_DAEMONSET}` (label "
                    f"`k8s-app: {DRIVER_DAEMONSET}`) cannot run, so GPUs of pools {pool_list(drivers)} get "
                    "no driver and stay unallocatable.",
                    [
                        f"`kubectl -n {DRIVER_NAMESPACE} get pods -l k8s-app={DRIVER_DAEMONSET} -o wide`; "
                        "then `kubectl logs <pod> -c nvidia-driver-installer` (an init container).",
                        "Image pull errors: check the node's access to the driver image registry (Cloud NAT).",
                        "A driver version that does not match the node image: pin a supported version "
                        "or switch the pool to `driver_mode: gke-managed`.",
                    ],
                    site,
                ),
                "Driver installer failing: ${log.extracted_label.pod}",
                close,
                rate_limit=rate,
            )
        )
    return out
