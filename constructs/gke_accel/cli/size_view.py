"""``gke-accel size``: how many chips a model needs, with the memory formula shown, per accelerator
in the catalog (smallest valid slice or GPU count, priced), or per pool of an environment.

Model and catalog only: no provider bindings are loaded.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from gke_accel.cli.checkpoint_view import add_arguments as add_checkpoint_arguments
from gke_accel.cli.checkpoint_view import checkpoint_json, checkpoint_plan, checkpoint_text
from gke_accel.cli.common import EXIT_OK, add_command, selected_plans
from gke_accel.tables import MAX_WIDTH, fit_text, render_table
from gke_accel.workloads.size.fit import Option, PoolFit, catalog_options, environment_fits
from gke_accel.workloads.size.memory import (
    GIB,
    TASKS,
    MemoryEstimate,
    estimate_memory,
    gib,
    known_models,
    model_params,
    parse_params,
)


def _usd(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"${value:,.{digits}f}"


def memory_text(est: MemoryEstimate) -> str:
    head = (
        f"{est.params / 1e9:g}B parameters, {est.task}, {est.precision}"
        + (f", {est.optimizer}" if est.optimizer else "")
        + f", context {est.context}, batch {est.batch}; transformer shape L={est.layers}, h={est.hidden} "
        + (f"(model {est.model})" if est.model else f"(from P = 12 L h^2, h = {est.hidden // est.layers} L)")
        + "; assumes fully sharded state (FSDP/ZeRO-3): plain data parallelism needs it on every replica"
    )
    rows = [[t.name, gib(t.bytes), t.formula] for t in est.terms]
    rows.append(["total", gib(est.total_bytes), " + ".join(t.name for t in est.terms)])
    rows.append(
        ["provision", gib(est.needed_bytes), f"total / {est.usable_fraction:g} (usable share of accelerator memory)"]
    )
    return fit_text(head) + "\n" + render_table(["term", "memory", "formula"], rows, max_width=MAX_WIDTH)


def options_text(options: list[Option]) -> str:
    rows = [
        [
            o.accelerator,
            o.shape,
            o.machine_type if o.nodes == 1 else f"{o.nodes} x {o.machine_type}",
            str(o.chips),
            f"{o.memory_gib:,.0f}",
            _usd(o.hourly_on_demand, 2),
            _usd(o.monthly_on_demand),
            _usd(o.monthly_spot),
        ]
        for o in sorted(options, key=lambda o: (o.kind, o.monthly_on_demand or float("inf")))
    ]
    return render_table(
        ["accelerator", "smallest fit", "machine", "chips", "GiB", "$/h", "$/month", "spot/mo"],
        rows,
        title="smallest fit per accelerator (chips: TPU chips or GPUs; GiB: their memory; '-': no list price)",
        max_width=MAX_WIDTH,
    )


def fits_text(name: str, fits: list[PoolFit]) -> str:
    rows = [[f.pool, f.accelerator, f.unit, f"{f.unit_memory_gib:,.0f} GiB", f.verdict] for f in fits]
    return render_table(
        ["pool", "accelerator", "unit", "memory per unit", "verdict"],
        rows,
        title=f"pools of {name}",
        max_width=MAX_WIDTH,
    )


def _json(est: MemoryEstimate, options: list[Option], fits: dict[str, list[PoolFit]]) -> dict[str, Any]:
    return {
        "params": est.params,
        "task": est.task,
        "precision": est.precision,
        "optimizer": est.optimizer,
        "context": est.context,
        "batch": est.batch,
        "layers": est.layers,
        "hidden": est.hidden,
        "terms": [{"name": t.name, "formula": t.formula, "gib": round(t.bytes / GIB, 3)} for t in est.terms],
        "total_gib": round(est.total_bytes / GIB, 3),
        "provision_gib": round(est.needed_bytes / GIB, 3),
        "options": [
            {
                "accelerator": o.accelerator,
                "kind": o.kind,
                "shape": o.shape,
                "machine_type": o.machine_type,
                "nodes": o.nodes,
                "slices": o.slices,
                "chips": o.chips,
                "memory_gib": o.memory_gib,
                "hourly_on_demand": o.hourly_on_demand,
                "monthly_on_demand": o.monthly_on_demand,
                "monthly_spot": o.monthly_spot,
            }
            for o in options
        ],
        "environments": {
            env: [
                {
                    "pool": f.pool,
                    "accelerator": f.accelerator,
                    "fits": f.fits,
                    "units_needed": f.units_needed,
                    "units_max": f.units_max,
                    "verdict": f.verdict,
                }
                for f in rows
            ]
            for env, rows in fits.items()
        },
    }


def cmd_size(args: argparse.Namespace) -> int:
    est = estimate_memory(
        parse_params(args.params) if args.params else model_params(args.model),
        args.task,
        precision=args.precision,
        optimizer=args.optimizer,
        context=args.context,
        batch=args.batch,
        model=args.model,
    )
    fits: dict[str, list[PoolFit]] = {}
    options: list[Option] = []
    if args.env:
        fits = {plan.name: environment_fits(est, plan) for plan in selected_plans(args)}
    else:
        options = catalog_options(est)
    cp = checkpoint_plan(est, args)
    if args.json:
        doc = _json(est, options, fits)
        if cp is not None:
            doc["checkpoint"] = checkpoint_json(cp)
        print(json.dumps(doc, indent=2))
        return EXIT_OK
    parts = [memory_text(est)] + ([checkpoint_text(cp)] if cp is not None else [])
    parts += [options_text(options)] if options else []
    parts += [fits_text(name, rows) for name, rows in fits.items()]
    print("\n\n".join(parts))
    return EXIT_OK


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "size",
        "how many chips or GPUs a model needs (memory model, smallest fit, price)",
        "gke-accel size --params 7B --task train",
        "gke-accel size --params 70B --task serve --precision int8 --env prod",
    )
    p.add_argument("--params", help="parameter count: 7B, 70e9, 350M (default: the --model's)")
    p.add_argument("--model", help="a known model shape (layers, hidden, KV heads): " + ", ".join(known_models()))
    p.add_argument("--task", required=True, choices=TASKS)
    p.add_argument("--precision", default="bf16", help="bf16 (default), fp8; serving also int8, int4")
    p.add_argument("--optimizer", help="training optimizer (default adamw; adamw-8bit, sgd-momentum)")
    p.add_argument("--context", type=int, help="tokens per sequence (default 4096)")
    p.add_argument("--batch", type=int, help="sequences per step (training) or concurrent (serving); default 8")
    p.add_argument("--env", action="append", help="only the pools of this environment (repeatable)")
    p.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_checkpoint_arguments(p)
    p.set_defaults(func=cmd_size)
