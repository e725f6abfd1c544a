"""``gke-accel catalog``: the accelerator catalog as tables."""

from __future__ import annotations

from gke_accel.catalog import Catalog
from gke_accel.tables import MAX_WIDTH, render_table


def _zones(zones: tuple[str, ...]) -> str:
    """Short form: the count, and the zones themselves when there are few (all in catalog/zones.yaml)."""
    if len(zones) <= 3:
        return ", ".join(zones)
    regions = len({z.rsplit("-", 1)[0] for z in zones})
    return f"{len(zones)} zones in {regions} regions"


def tpu_table(catalog: Catalog, only: str | None = None) -> str:
    rows = []
    for gen in catalog.tpu_generations.values():
        if only and only.lower() != gen.name:
            continue
        machines = ", ".join(f"{m}({c})" for m, c in gen.machine_types.items())
        price = catalog.prices.tpu_per_chip_hour.get(gen.name)
        rows.append(
            [
                gen.name,
                gen.label,
                f"{gen.dimensions}D",
                machines,
                gen.max_chips,
                gen.hbm_gib_per_chip,
                "compact" if gen.multihost_placement == "compact" else "workload policy",
                f"{price.on_demand:.2f}/{price.spot if price.spot is not None else '-'}" if price else "-",
            ]
        )
    headers = [
        "gen",
        "node label",
        "topo",
        "machine types (chips/VM)",
        "max chips",
        "HBM GiB/chip",
        "multi-host",
        "$/chip-h od/spot",
    ]
    zones = [
        f"  {gen.name}: {_zones(gen.zones)}"
        for gen in catalog.tpu_generations.values()
        if not only or only.lower() == gen.name
    ]
    table = render_table(headers, rows, "TPU generations", max_width=MAX_WIDTH)
    return table + f"\nzones (data as of {catalog.zones.as_of}):\n" + "\n".join(zones)


def gpu_table(catalog: Catalog, only: str | None = None) -> str:
    model_filter = catalog.gpu_model(only) if only else None
    rows = []
    for machine in catalog.gpu_machines.values():
        if only and (model_filter is None or machine.accelerator_type != model_filter.accelerator_type):
            continue
        model = catalog.gpu_models[machine.accelerator_type]
        price = catalog.prices.machine_per_hour.get(machine.machine_type)
        rows.append(
            [
                machine.machine_type,
                machine.accelerator_type,
                machine.count,
                model.memory_gb,
                machine.vcpu,
                machine.memory_gb,
                ", ".join(model.mig_sizes) or "-",
                f"{price.on_demand:.2f}/{price.spot}" + (" (verify)" if price.verify else "") if price else "-",
            ]
        )
    for accel, limits in catalog.n1_limits.items():
        if only and (model_filter is None or accel != model_filter.accelerator_type):
            continue
        model = catalog.gpu_models[accel]
        for count, limit in limits.items():
            rows.append([f"n1 (<= {limit.max_vcpu} vCPU)", accel, count, model.memory_gb, "-", "-", "-", "-"])
    headers = ["machine", "accelerator", "GPUs", "GB/GPU", "vCPU", "RAM GB", "MIG sizes", "$/h od/spot"]
    return render_table(headers, rows, "GPU machine types", max_width=MAX_WIDTH)


def catalog_text(catalog: Catalog, tpu: str | None, gpu: str | None) -> str:
    parts = []
    if tpu or not gpu:
        parts.append(tpu_table(catalog, tpu))
    if gpu or not tpu:
        parts.append(gpu_table(catalog, gpu))
    parts.append(f"Prices: USD list prices, us-central1, as of {catalog.prices.source_date} ({catalog.prices.source}).")
    return "\n\n".join(parts)
