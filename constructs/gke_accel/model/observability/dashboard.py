"""The environment's Cloud Monitoring dashboard as the API's JSON (``dashboard_json``).

Widgets: accelerator utilization and memory (GPU and TPU, only for what the environment has),
node counts per pool, Spot preemptions and unschedulable pods (logs panels with the same
filters as the alerts).

"Per pool": the accelerator container metrics carry no node-pool label, so utilization and
memory are grouped by the ``model`` metric label (one accelerator model per pool, unless two
pools share a model). Node counts use ``compute.googleapis.com/instance_group/size`` on the
node pools' managed instance groups, whose names start ``gke-<cluster>-<pool>`` (GKE shortens
long names: UNVERIFIED for names over ~15 characters; this fact is not in the reference).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_accel.model.observability.alert_shapes import (
    DUTY_CYCLE,
    MEMORY_TOTAL,
    MEMORY_USED,
    TENSORCORE,
    gpu_pools,
    preemption_filter,
    spot_pools,
    tpu_pools,
    unschedulable_filter,
)
from gke_accel.model.observability.site import ObservedPlan, Site, site_of
from gke_accel.model.pools.node_pool import NodePoolPlan

INSTANCE_GROUP_SIZE = "compute.googleapis.com/instance_group/size"
BY_MODEL = ['metric.label."model"']


def _filter(metric: str, cluster: str, extra: str = "") -> str:
    text = f'resource.type="k8s_container" AND metric.type="{metric}"'
    return text + (f" AND {extra}" if extra else "") + f' AND resource.labels.cluster_name="{cluster}"'


def _agg(reducer: str, group_by: list[str], aligner: str = "ALIGN_MEAN") -> dict[str, Any]:
    return {
        "alignmentPeriod": "60s",
        "perSeriesAligner": aligner,
        "crossSeriesReducer": reducer,
        "groupByFields": group_by,
    }


def _chart(title: str, query: dict[str, Any], y_label: str) -> dict[str, Any]:
    return {
        "title": title,
        "xyChart": {
            "dataSets": [{"timeSeriesQuery": query, "plotType": "LINE", "targetAxis": "Y1"}],
            "yAxis": {"label": y_label, "scale": "LINEAR"},
        },
    }


def _series(flt: str, reducer: str, group_by: list[str]) -> dict[str, Any]:
    return {"timeSeriesFilter": {"filter": flt, "aggregation": _agg(reducer, group_by)}}


def _logs(title: str, flt: str, project: str) -> dict[str, Any]:
    return {"title": title, "logsPanel": {"filter": flt, "resourceNames": [f"projects/{project}"]}}


def dashboard_json(plan: ObservedPlan) -> dict[str, Any]:
    """``dashboard_for`` an environment's plan."""
    return dashboard_for(site_of(plan), plan.pools)


def dashboard_for(site: Site, pools: Sequence[NodePoolPlan]) -> dict[str, Any]:
    cluster = site.cluster
    project = site.project_id
    gpus, tpus, spots = gpu_pools(pools), tpu_pools(pools), spot_pools(pools)
    widgets: list[dict[str, Any]] = []
    if gpus:
        widgets.append(
            _chart(
                "GPU duty cycle (%) by model",
                _series(_filter(DUTY_CYCLE, cluster, 'metric.label."make"!="cloud-tpu"'), "REDUCE_MEAN", BY_MODEL),
                "%",
            )
        )
    if tpus:
        widgets.append(
            _chart(
                "TPU TensorCore utilization (%) by model",
                _series(_filter(TENSORCORE, cluster), "REDUCE_MEAN", BY_MODEL),
                "%",
            )
        )
    if gpus or tpus:
        ratio = {
            "timeSeriesFilterRatio": {
                "numerator": {"filter": _filter(MEMORY_USED, cluster), "aggregation": _agg("REDUCE_SUM", BY_MODEL)},
                "denominator": {"filter": _filter(MEMORY_TOTAL, cluster), "aggregation": _agg("REDUCE_SUM", BY_MODEL)},
            }
        }
        widgets.append(_chart("Accelerator memory used / total by model", ratio, "ratio"))
    node_filter = (
        f'resource.type="instance_group" AND metric.type="{INSTANCE_GROUP_SIZE}" '
        f'AND resource.labels.instance_group_name=monitoring.regex.full_match("gke-{cluster}-.*")'
    )
    widgets.append(
        _chart(
            "Nodes per pool (managed instance groups: gke-<cluster>-<pool>-...)",
            _series(node_filter, "REDUCE_SUM", ['resource.label."instance_group_name"']),
            "nodes",
        )
    )
    if spots:
        widgets.append(_logs("Spot preemptions", preemption_filter(cluster), project))
    resources = (["nvidia.com/gpu"] if gpus else []) + (["google.com/tpu"] if tpus else [])
    if resources:
        widgets.append(
            _logs("Pods unschedulable for lack of accelerators", unschedulable_filter(cluster, resources), project)
        )
    return {
        "displayName": f"gke-accel {site.environment}: {cluster} accelerators",
        "gridLayout": {"columns": "2", "widgets": widgets},
    }
