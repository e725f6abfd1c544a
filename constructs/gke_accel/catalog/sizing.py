"""Typed view of ``sizing.yaml``: bytes per parameter, optimizer state and the memory rules of thumb
behind ``gke-accel size``. Accelerator memory comes from ``accelerators.yaml`` (one source)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gke_accel.catalog._yaml import safe_load


@dataclass(frozen=True)
class ModelShape:
    name: str
    params: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int

    @property
    def kv_channels(self) -> int:
        return self.kv_heads * self.head_dim


@dataclass(frozen=True)
class SizingFacts:
    bytes_per_parameter: dict[str, float]
    precisions: dict[str, tuple[str, ...]]  # task -> allowed formats
    optimizers: dict[str, float]  # bytes of optimizer state (incl. fp32 master) per trainable parameter
    default_optimizer: str
    params_per_layer_h2: float
    aspect_ratio: float
    activation_bytes: float  # per token, layer and hidden unit
    kv_values: float  # per token, layer and hidden unit
    kv_cache_format: dict[str, str]  # serving format -> KV cache format
    finetune_trainable_fraction: float
    usable_memory_fraction: float
    default_context: int
    default_batch: int
    models: dict[str, ModelShape] = field(default_factory=dict)
    training_weight_format: dict[str, str] = field(default_factory=dict)
    usable_memory_fraction_train: float = 0.75


@functools.cache
def load_sizing() -> SizingFacts:
    text = resources.files("gke_accel.catalog").joinpath("sizing.yaml").read_text(encoding="utf-8")
    raw: dict[str, Any] = safe_load(text)
    return SizingFacts(
        bytes_per_parameter={str(k): float(v) for k, v in raw["bytes_per_parameter"].items()},
        precisions={str(k): tuple(str(p) for p in v) for k, v in raw["precisions"].items()},
        optimizers={str(k): float(v) for k, v in raw["optimizers"].items()},
        default_optimizer=str(raw["default_optimizer"]),
        params_per_layer_h2=float(raw["transformer"]["params_per_layer_h2"]),
        aspect_ratio=float(raw["transformer"]["aspect_ratio"]),
        activation_bytes=float(raw["activation_bytes_per_token_layer_hidden"]),
        kv_values=float(raw["kv_values_per_token_layer_hidden"]),
        kv_cache_format={str(k): str(v) for k, v in raw["kv_cache_format"].items()},
        finetune_trainable_fraction=float(raw["finetune_trainable_fraction"]),
        usable_memory_fraction=float(raw["usable_memory_fraction"]),
        default_context=int(raw["defaults"]["context"]),
        default_batch=int(raw["defaults"]["batch"]),
        models={
            str(n): ModelShape(
                str(n), float(m["params"]), int(m["layers"]), int(m["hidden"]), int(m["kv_heads"]), int(m["head_dim"])
            )
            for n, m in raw["models"].items()
        },
        training_weight_format={str(k): str(v) for k, v in raw["training_weight_format"].items()},
        usable_memory_fraction_train=float(raw["usable_memory_fraction_train"]),
    )
