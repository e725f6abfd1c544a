"""A team's accelerator quota: which Kubernetes resource a GPU model or TPU generation is counted in,
and the ResourceQuota key Kubernetes enforces it under.

A quota counts one unit (``NodePoolPlan.unit``): whole GPUs (``a100-80gb``), TPU chips (``v5e``), or the
instances of a split GPU, named as its Kueue flavor names the shape: ``a100-80gb-mig-1g-10gb`` (MIG
1g.10gb instances), ``t4-ts4`` (slots of a T4 time-shared by 4), ``l4-mps2``, ``a100-80gb-mig-1g-10gb-ts2``.
"""

from __future__ import annotations

import re

from gke_accel.catalog import Catalog
from gke_accel.model.pools.node_pool import GPU_RESOURCE, TPU_RESOURCE
from gke_accel.model.teams.spec import TeamSpec

EXTENDED_RESOURCES = (GPU_RESOURCE, TPU_RESOURCE)
# <gpu>-<split>: the split as node_pool.gpu_split names it (MIG size with '.' as '-', then ts<n> or mps<n>)
_SPLIT_NAME = re.compile(r"(?P<model>.+?)-(?P<split>mig-(?P<size>\dg-\d+gb)(?:-(?:ts|mps)\d+)?|(?:ts|mps)\d+)")
SPLIT_HELP = "<gpu>-mig-<size> (a100-80gb-mig-1g-10gb), <gpu>-ts<clients> (t4-ts4) or <gpu>-mps<clients> for split GPUs"


def accelerator_key(name: str, catalog: Catalog) -> tuple[str, str] | None:
    """(resource, unit) for a GPU model alias, a split GPU's unit name or a TPU generation name, or
    None if unknown; the unit is ``NodePoolPlan.unit`` (``nvidia-l4``, ``nvidia-a100-80gb/mig-1g-10gb``)."""
    gen = catalog.tpu_generations.get(name)
    if gen is not None:
        return TPU_RESOURCE, gen.label
    model = catalog.gpu_model(name)
    if model is not None:
        return GPU_RESOURCE, model.accelerator_type
    split = _SPLIT_NAME.fullmatch(name.strip().lower())
    model = catalog.gpu_model(split["model"]) if split else None
    if split is None or model is None:
        return None
    size = split["size"]
    if size is not None and size.replace("-", ".") not in model.mig_sizes:
        return None
    return GPU_RESOURCE, f"{model.accelerator_type}/{split['split']}"


def accelerator_name(label: str, catalog: Catalog) -> str:
    """The name a config or flag uses (``l4``, ``v5e``) for an accelerator label (``nvidia-l4``,
    ``tpu-v5-lite-podslice``); the label itself when the catalog has no shorter name. A split GPU's unit
    (``nvidia-a100-80gb/mig-1g-10gb``) is named ``a100-80gb-mig-1g-10gb``."""
    if "/" in label:
        base, split = label.split("/", 1)
        return f"{accelerator_name(base, catalog)}-{split}"
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
