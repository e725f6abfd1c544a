"""The ``shared-gpu`` rule: on GKE's time-shared and NVIDIA MPS GPU nodes a container may request one
``nvidia.com/gpu`` at most. Such a node advertises ``gpus x max-shared-clients`` of the resource, so the
scheduler places a container asking for 2; GKE's device plugin then refuses it at the kubelet
(``UnexpectedAdmissionError``: "invalid request for sharing GPU (time-sharing), at most 1
nvidia.com/gpu can be requested on GPU nodes", GKE "About GPU sharing strategies"), and the pod fails
(real-engines W4d). The plugin enforces it, so the kwok nodes of the e2e tests cannot show it."""

from __future__ import annotations

from decimal import Decimal

from gke_accel.workloads.lint._model import GPU_RESOURCE
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Obj, as_dict, containers, init_containers
from gke_accel.workloads.nodes import PoolNodes
from gke_accel.workloads.quantity import parse_quantity

MAX_PER_CONTAINER = Decimal(1)  # GKE's limit on shared GPUs (time-sharing and MPS alike)


def _strategy(pool: PoolNodes) -> str | None:
    accel = pool.plan.guest_accelerator
    return None if accel is None or accel.sharing is None else accel.sharing.strategy


def _selected(pod: Obj, pools: list[PoolNodes]) -> str | None:
    """The sharing strategy the pod's nodeSelector names: a label only shared pools carry (GKE's
    ``gke-gpu-sharing-strategy``, gke-accel's ``gpu-unit: ts4``), with a shared pool's value."""
    selector = {str(k): str(v) for k, v in as_dict(pod.get("nodeSelector")).items()}
    whole = {item for p in pools if _strategy(p) is None for item in p.labels.items()}
    for p in pools:
        strategy = _strategy(p)
        if strategy and any(item in selector.items() and item not in whole for item in p.labels.items()):
            return strategy
    return None


def _gpus(container: Obj) -> Decimal | None:
    res = as_dict(container.get("resources"))
    for part in ("limits", "requests"):  # an extended resource's request defaults to its limit
        value = as_dict(res.get(part)).get(GPU_RESOURCE)
        if value is not None:
            return parse_quantity(value)
    return None


def shared_gpu_findings(pod: Obj, path: str, fitting: list[PoolNodes], pools: list[PoolNodes]) -> list[Finding]:
    """A container asking more than one GPU, where the pod lands on (``fitting``) or selects a shared-GPU
    pool of the environment's ``pools``."""
    shared = [p.name for p in fitting if _strategy(p)]
    selected = _selected(pod, pools)
    if not shared and selected is None:
        return []
    where = f"pools {', '.join(shared)} share their GPUs" if shared else f"it selects {selected} GPUs"
    out: list[Finding] = []
    for field, items in (("containers", containers(pod)), ("initContainers", init_containers(pod))):
        for i, c in enumerate(items):
            gpus = _gpus(c)
            if gpus is None or gpus <= MAX_PER_CONTAINER:
                continue
            out.append(
                Finding(
                    "shared-gpu",
                    "error",
                    f"{path}.{field}[{i}].resources.limits.{GPU_RESOURCE}",
                    f"{gpus.normalize():f} GPUs in one container, but {where} (time-sharing or MPS), where a "
                    "container may request 1 nvidia.com/gpu at most: GKE's device plugin refuses the pod "
                    "(UnexpectedAdmissionError)",
                    "request 1 nvidia.com/gpu per container, or select a pool of whole GPUs",
                )
            )
    return out
