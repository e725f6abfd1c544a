"""The accelerator usage alerts: GPUs or TPUs allocated but idle, accelerator memory nearly full."""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.observability.alert_shapes import (
    DUTY_CYCLE,
    GPU_IDLE,
    MEMORY_FULL,
    MEMORY_TOTAL,
    MEMORY_USED,
    TENSORCORE,
    TPU_IDLE,
    AlertCondition,
    AlertPlan,
    ThresholdCondition,
    alignment,
    container_filter,
    gpu_pools,
    on_call_doc,
    pool_list,
    seconds,
    tpu_pools,
)
from gke_accel.model.observability.site import Site
from gke_accel.model.observability.spec import AlertThresholds
from gke_accel.model.pools.node_pool import NodePoolPlan


def usage_alerts(site: Site, pools: Sequence[NodePoolPlan], t: AlertThresholds) -> list[AlertPlan]:
    cluster = site.cluster
    gpus, tpus = gpu_pools(pools), tpu_pools(pools)
    close = seconds(t.auto_close_seconds)
    out: list[AlertPlan] = []
    if gpus:
        out.append(
            AlertPlan(
                GPU_IDLE,
                f"[{site.environment}] GPUs allocated but idle",
                "WARNING",
                (),
                (
                    AlertCondition(
                        f"GPU duty cycle < {t.gpu_idle_percent:g}% for {t.gpu_idle_duration_seconds}s",
                        threshold=ThresholdCondition(
                            filter=container_filter(DUTY_CYCLE, cluster, 'metric.label."make"!="cloud-tpu"'),
                            comparison="COMPARISON_LT",
                            threshold_value=t.gpu_idle_percent,
                            duration=seconds(t.gpu_idle_duration_seconds),
                            alignment_period=alignment(t.gpu_idle_duration_seconds),
                            per_series_aligner="ALIGN_MEAN",
                        ),
                    ),
                ),
                on_call_doc(
                    f"A container holds GPUs (pools {pool_list(gpus)}) but their duty cycle stayed below "
                    f"{t.gpu_idle_percent:g}% for {t.gpu_idle_duration_seconds // 60} minutes. The "
                    "metric only exists for containers that were allocated GPUs, so this is paid "
                    "capacity doing nothing.",
                    [
                        "Find the pod in the incident's `pod_name` label; `kubectl -n <ns> logs <pod>`: "
                        "is it stuck (data loading, a deadlock, waiting on a peer)?",
                        "If it is a notebook or a finished job holding its GPUs, ask the owner to stop it.",
                        "If a pool sits idle at its minimum size, consider lowering `min_nodes`.",
                    ],
                    site,
                ),
                "GPUs idle in ${resource.label.pod_name}",
                close,
            )
        )
    if tpus:
        out.append(
            AlertPlan(
                TPU_IDLE,
                f"[{site.environment}] TPUs allocated but idle",
                "WARNING",
                (),
                (
                    AlertCondition(
                        f"TensorCore utilization < {t.tpu_idle_percent:g}% for {t.tpu_idle_duration_seconds}s",
                        threshold=ThresholdCondition(
                            filter=container_filter(TENSORCORE, cluster),
                            comparison="COMPARISON_LT",
                            threshold_value=t.tpu_idle_percent,
                            duration=seconds(t.tpu_idle_duration_seconds),
                            alignment_period=alignment(t.tpu_idle_duration_seconds),
                            per_series_aligner="ALIGN_MEAN",
                        ),
                    ),
                ),
                on_call_doc(
                    f"A container holds TPU chips (pools {pool_list(tpus)}) but their TensorCore "
                    f"utilization stayed below {t.tpu_idle_percent:g}% for "
                    f"{t.tpu_idle_duration_seconds // 60} minutes.",
                    [
                        "Find the pod in the incident's `pod_name` label and read its logs: compilation, "
                        "input pipeline stalls and multislice peers that never joined all look like this.",
                        "For a multi-host slice, check that every worker pod of the JobSet is Running.",
                        "If the slice is reserved but unused, scale the workload down or free the slice.",
                    ],
                    site,
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
                f"[{site.environment}] Accelerator memory nearly full",
                "WARNING",
                (),
                (
                    AlertCondition(
                        f"accelerator memory used / total > {t.memory_full_percent:g}% for "
                        f"{t.memory_full_duration_seconds}s",
                        threshold=ThresholdCondition(
                            filter=container_filter(MEMORY_USED, cluster),
                            denominator_filter=container_filter(MEMORY_TOTAL, cluster),
                            comparison="COMPARISON_GT",
                            threshold_value=round(ratio, 6),
                            duration=seconds(t.memory_full_duration_seconds),
                            alignment_period=alignment(t.memory_full_duration_seconds),
                            per_series_aligner="ALIGN_MEAN",
                        ),
                    ),
                ),
                on_call_doc(
                    f"An accelerator's memory (GPU framebuffer or TPU HBM) stayed above "
                    f"{t.memory_full_percent:g}% for {t.memory_full_duration_seconds // 60} minutes. The "
                    "next allocation may fail with an out-of-memory error.",
                    [
                        "Frameworks that preallocate (JAX, TensorFlow) show near-full memory by design: "
                        "check the pod's logs for OOM / RESOURCE_EXHAUSTED before acting.",
                        "Otherwise reduce the batch size or sequence length, or shard the model further.",
                        "With GPU time-sharing or MPS, check that the sharing clients fit in memory together.",
                    ],
                    site,
                ),
                "Accelerator memory nearly full in ${resource.label.pod_name}",
                close,
            )
        )
    return out
