"""Quota preferences derived from the pools' maximum sizes.

GPUs add up per accelerator type and per quota bucket (on-demand vs preemptible) in the
environment's region; TPU chips per generation. The quota ID for each comes from
``catalog/quotas.yaml``: only IDs marked ``documented`` become ``google_cloud_quotas_quota_preference``
resources; the others are reported as "not emitted" with the candidate ID, never guessed.

Buckets: Spot pools use the preemptible quota (Compute Engine: "consider requesting preemptible
quota for Spot VMs" [doc]). Flex-start and queued (DWS) pools are counted as preemptible too: per
third-party notes DWS spends preemptible quota first; not confirmed in Google's documentation.
On-demand and reservation pools count as on-demand.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

import yaml

from gke_accel.model.observability.site import ObservedPlan
from gke_accel.model.pools.node_pool import NodePoolPlan

Bucket = Literal["on_demand", "preemptible"]
SERVICE = "compute.googleapis.com"


@dataclass(frozen=True)
class QuotaId:
    quota_id: str
    dimensions: dict[str, str]
    documented: bool
    source: str


@dataclass(frozen=True)
class QuotaCatalog:
    sources: dict[str, str]
    gpu: dict[str, dict[str, QuotaId]]  # accelerator type -> bucket -> quota
    tpu: dict[str, dict[str, QuotaId]]  # generation -> bucket -> quota


def _quota(raw: dict[str, Any]) -> QuotaId:
    return QuotaId(
        quota_id=str(raw["quota_id"]),
        dimensions={str(k): str(v) for k, v in (raw.get("dimensions") or {}).items()},
        documented=bool(raw.get("documented", False)),
        source=str(raw.get("source", "")),
    )


@functools.cache
def load_quota_catalog() -> QuotaCatalog:
    text = resources.files("gke_accel.catalog").joinpath("quotas.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    return QuotaCatalog(
        sources={str(k): str(v) for k, v in data["sources"].items()},
        gpu={k: {b: _quota(q) for b, q in v.items()} for k, v in data["gpu"].items()},
        tpu={k: {b: _quota(q) for b, q in v.items()} for k, v in data["tpu"].items()},
    )


def bucket_of(pool: NodePoolPlan) -> Bucket:
    return "preemptible" if pool.spot or pool.flex_start or pool.queued else "on_demand"


@dataclass(frozen=True)
class QuotaNeed:
    """One sum: the pools of one accelerator and bucket, and what they add up to at max size."""

    kind: Literal["gpu", "tpu"]
    accelerator: str  # GPU accelerator type or TPU generation
    bucket: Bucket
    region: str
    pools: tuple[tuple[str, int, int, int], ...]  # (pool, max nodes, chips per node, chips at max)
    total: int
    quota: QuotaId | None

    @property
    def emitted(self) -> bool:
        return self.quota is not None and self.quota.documented and self.total > 0

    @property
    def dimensions(self) -> dict[str, str]:
        return {"region": self.region, **(self.quota.dimensions if self.quota else {})}

    @property
    def preference_name(self) -> str:
        """The quotaPreferenceId, in the form of Google's examples:
        ``compute_googleapis_com-<quota id>_<region>[_<dimension value>]``."""
        assert self.quota is not None
        extra = "".join(f"_{v}" for v in self.quota.dimensions.values())
        return f"{SERVICE.replace('.', '_')}-{self.quota.quota_id}_{self.region}{extra}"


@dataclass(frozen=True)
class QuotaPlan:
    needs: tuple[QuotaNeed, ...] = field(default_factory=tuple)

    @property
    def emitted(self) -> tuple[QuotaNeed, ...]:
        return tuple(n for n in self.needs if n.emitted)


def plan_quotas(plan: ObservedPlan) -> QuotaPlan:
    """``quotas_for`` an environment's plan."""
    return quotas_for(plan.spec.region, plan.pools)


def quotas_for(region: str, all_pools: Sequence[NodePoolPlan]) -> QuotaPlan:
    """Sum the pools' maximum chips per (accelerator, bucket) in the environment's region."""
    catalog = load_quota_catalog()
    groups: dict[tuple[str, str, Bucket], list[NodePoolPlan]] = {}
    for pool in all_pools:
        if pool.kind == "gpu":
            key = ("gpu", pool.accelerator, bucket_of(pool))
        elif pool.kind == "tpu" and pool.tpu_generation:
            key = ("tpu", pool.tpu_generation, bucket_of(pool))
        else:
            continue
        groups.setdefault(key, []).append(pool)
    needs = []
    for (kind, accel, bucket), pools in groups.items():
        rows = tuple((p.name, p.node_bounds()[1], p.chips_per_node, p.chip_bounds()[1]) for p in pools)
        table = catalog.gpu if kind == "gpu" else catalog.tpu
        needs.append(
            QuotaNeed(
                kind="gpu" if kind == "gpu" else "tpu",
                accelerator=accel,
                bucket=bucket,
                region=region,
                pools=rows,
                total=sum(r[3] for r in rows),
                quota=table.get(accel, {}).get(bucket),
            )
        )
    return QuotaPlan(tuple(needs))


def derivation_text(plan: ObservedPlan, quotas: QuotaPlan | None = None) -> str:
    """Which pools add up to which number, and what is (not) requested, for ``gke-accel synth``."""
    quotas = quotas or plan_quotas(plan)
    state = "on" if plan.spec.quota_preferences else "off (set quota_preferences: true to request them)"
    lines = [f"  quota preferences: {state}"]
    if not quotas.needs:
        lines.append("    no accelerator pools")
    for need in quotas.needs:
        unit = "GPUs" if need.kind == "gpu" else "TPU chips"
        parts = " + ".join(f"{name} {nodes} nodes x {chips}" for name, nodes, chips, _ in need.pools)
        head = f"    {need.accelerator} {need.bucket.replace('_', '-')} {unit} in {need.region}: {parts} = {need.total}"
        if need.quota is None:
            tail = "no quota ID in catalog/quotas.yaml: not emitted"
        elif not need.quota.documented:
            seen = "seen only in third-party code" if need.quota.source == "3p" else f"source {need.quota.source}"
            tail = f"not emitted: candidate {need.quota.quota_id} is not in Google's documentation ({seen})"
        elif need.total == 0:
            tail = "nothing to request (0)"
        else:
            dims = ", ".join(f"{k}={v}" for k, v in need.dimensions.items())
            verb = "requested" if plan.spec.quota_preferences else "would request"
            tail = f"{verb}: {SERVICE} {need.quota.quota_id} [{dims}] preferred_value={need.total}"
        lines.append(f"{head} -> {tail}")
    return "\n".join(lines)
