"""The memory model: weights, gradients, optimizer state, activations (training) or KV cache
(serving), each with the formula used, from the facts in ``catalog/sizing.yaml``.

All sizes are bytes; the report shows GiB (2^30 bytes), the unit of the catalog's accelerator memory.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from gke_accel.catalog.sizing import SizingFacts, load_sizing
from gke_accel.workloads.size._model import ConfigError, ConfigIssue

Task = Literal["train", "finetune", "serve"]
TASKS: tuple[Task, ...] = ("train", "finetune", "serve")
GIB = 2**30
_PARAMS = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def parse_params(text: str) -> float:
    """``7B``, ``70e9``, ``1.5b``, ``350M`` -> a parameter count; ConfigError otherwise."""
    match = _PARAMS.match(text)
    value = float(match.group(1)) * _SUFFIX[match.group(2).lower()] if match else 0.0
    if not 1e6 <= value <= 1e15:  # a million to a quadrillion; 1e308B would overflow the memory arithmetic
        raise ConfigError([ConfigIssue("--params", f"{text[:40]!r} is not a parameter count from 1M to 1e15",
                                       "e.g. 7B, 70e9, 350M")])  # fmt: skip
    return value


def known_models() -> list[str]:
    return list(load_sizing().models)


def model_params(model: str | None) -> float:
    """The parameter count of a known model (``--model`` without ``--params``)."""
    shape = load_sizing().models.get(model or "")
    if shape is None:
        valid = "a parameter count (--params 7B) or --model " + ", ".join(known_models())
        raise ConfigError(
            [ConfigIssue("--params", "missing" if model is None else f"--model {model!r} unknown", valid)]
        )
    return shape.params


@dataclass(frozen=True)
class Term:
    name: str
    formula: str
    bytes: float


@dataclass(frozen=True)
class MemoryEstimate:
    params: float
    task: Task
    precision: str
    optimizer: str | None
    context: int
    batch: int
    layers: int
    hidden: int
    terms: tuple[Term, ...]
    usable_fraction: float
    model: str | None = None

    @property
    def total_bytes(self) -> float:
        return sum(t.bytes for t in self.terms)

    @property
    def needed_bytes(self) -> float:
        """Accelerator memory to provision: the total over the usable share of memory."""
        return self.total_bytes / self.usable_fraction


def transformer_shape(params: float, facts: SizingFacts) -> tuple[int, int]:
    """(layers L, hidden h) of a transformer with ``params`` parameters: P = 12 L h^2, h = a L."""
    a = facts.aspect_ratio
    layers = max(1, round((params / (facts.params_per_layer_h2 * a * a)) ** (1 / 3)))
    return layers, int(a * layers)


def _check(task: str, precision: str, optimizer: str, context: int, batch: int, facts: SizingFacts) -> None:
    issues = []
    if task not in TASKS:
        issues.append(ConfigIssue("--task", f"{task!r} is not a task", ", ".join(TASKS)))
    elif precision not in facts.precisions[task]:
        issues.append(
            ConfigIssue("--precision", f"{precision!r} is not used to {task}", ", ".join(facts.precisions[task]))
        )
    if optimizer not in facts.optimizers:
        issues.append(
            ConfigIssue("--optimizer", f"{optimizer!r} is not a known optimizer", ", ".join(facts.optimizers))
        )
    for flag, value in (("--context", context), ("--batch", batch)):
        if value < 1:
            issues.append(ConfigIssue(flag, f"{value} is out of range", "1 or more"))
    if issues:
        raise ConfigError(issues)


def estimate_memory(
    params: float,
    task: str,
    *,
    precision: str = "bf16",
    optimizer: str | None = None,
    context: int | None = None,
    batch: int | None = None,
    facts: SizingFacts | None = None,
    model: str | None = None,
) -> MemoryEstimate:
    """Memory of ``params`` parameters for ``task``. ``model`` names a known shape (sizing.yaml
    ``models``): its layers, hidden size and KV heads replace the P = 12 L h^2 rule and MHA."""
    facts = facts or load_sizing()
    shape = None
    if model is not None:
        shape = facts.models.get(model)
        if shape is None:
            raise ConfigError([ConfigIssue("--model", f"{model!r} is not a known model", ", ".join(facts.models))])
    opt = optimizer or facts.default_optimizer
    s = context if context is not None else facts.default_context
    b = batch if batch is not None else facts.default_batch
    _check(task, precision, opt, s, b, facts)
    layers, hidden = (shape.layers, shape.hidden) if shape else transformer_shape(params, facts)
    kv_channels = shape.kv_channels if shape else hidden
    stored = facts.training_weight_format.get(precision, precision) if task != "serve" else precision
    w = facts.bytes_per_parameter[stored]
    p_text = f"{params / 1e9:g}e9"
    terms = [Term("weights", f"P x {w:g} B ({stored}) = {p_text} x {w:g}", params * w)]
    if task in ("train", "finetune"):
        trainable = params if task == "train" else params * facts.finetune_trainable_fraction
        t_text = p_text if task == "train" else f"{facts.finetune_trainable_fraction:g} x P"
        o = facts.optimizers[opt]
        act = facts.activation_bytes
        terms += [
            Term("gradients", f"{t_text} trainable x {w:g} B", trainable * w),
            Term("optimizer", f"{t_text} trainable x {o:g} B ({opt}, incl. fp32 master copy)", trainable * o),
            Term(
                "activations",
                f"{act:g} B x context {s} x batch {b} x h {hidden} x L {layers} (full recomputation)",
                act * s * b * hidden * layers,
            ),
        ]
    else:
        kv_format = facts.kv_cache_format[precision]
        kv_w = facts.bytes_per_parameter[kv_format]
        kv = facts.kv_values
        terms.append(
            Term(
                "kv cache",
                f"{kv:g} (K,V) x L {layers} x {'KV heads x head dim' if shape else 'h'} {kv_channels}"
                f" x context {s} x batch {b} x {kv_w:g} B ({kv_format})",
                kv * layers * kv_channels * s * b * kv_w,
            )
        )
    return MemoryEstimate(
        params=params,
        task=task,  # type: ignore[arg-type]  # checked by _check
        precision=precision,
        optimizer=opt if task != "serve" else None,
        context=s,
        batch=b,
        layers=layers,
        hidden=hidden,
        terms=tuple(terms),
        usable_fraction=facts.usable_memory_fraction if task == "serve" else facts.usable_memory_fraction_train,
        model=model,
    )


def gib(value: float) -> str:
    return f"{value / GIB:,.1f} GiB"


def ceil_div(a: float, b: float) -> int:
    return max(1, math.ceil(a / b - 1e-9))
