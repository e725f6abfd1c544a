"""A team's accelerator quota: which Kubernetes resource a GPU model or TPU generation is counted in,
and the ResourceQuota key Kubernetes enforces it under."""

from __future__ import annotations

from gke_accel.catalog import Catalog
from gke_accel.model.pools.node_pool import GPU_RESOURCE, TPU_RESOURCE
from gke_accel.model.teams.spec import TeamSpec

EXTENDED_RESOURCES = (GPU_RESOURCE, TPU_RESOURCE)


def accelerator_key(name: str, catalog: Catalog) -> tuple[str, str] | None:
    """(resource, accelerator) for a GPU model alias or TPU generation name, or None if unknown."""
    gen = catalog.tpu_generations.get(name)
    if gen is not None:
        return TPU_RESOURCE, gen.label
    model = catalog.gpu_model(name)
    if model is not None:
        return GPU_RESOURCE, model.accelerator_type
    return None


def accelerator_name(label: str, catalog: Catalog) -> str:
    """The name a config or flag uses (``l4``, ``v5e``) for an accelerator label (``nvidia-l4``,
    ``tpu-v5-lite-podslice``); the label itself when the catalog has no shorter name."""
    gen = next((name for name, g in catalog.tpu_generations.items() if g.label == label), None)
    if gen is not None:
        return gen
    model = catalog.gpu_model(label)
    return model.aliases[0] if model is not None and model.aliases else label


def quota_key(resource: str) -> str:
    """ResourceQuota key for an extended resource. Kubernetes honours only the ``requests.``
    prefix for them (``nvidia.com/gpu`` alone is silently ignored), so no other form is produced."""
    assert resource in EXTENDED_RESOURCES, resource
    return f"requests.{resource}"


def per_resource(team: TeamSpec, catalog: Catalog) -> dict[str, int]:
    """The team's accelerators summed per extended resource (unknown names left out)."""
    totals = dict.fromkeys(EXTENDED_RESOURCES, 0)
    for name, amount in team.accelerators.items():
        key = accelerator_key(name, catalog)
        if key is not None:
            totals[key[0]] += amount
    return totals
