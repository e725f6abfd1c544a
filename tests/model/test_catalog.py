"""The catalog data loads, is internally consistent, and holds the documented facts."""

from __future__ import annotations

from gke_accel.catalog import load_catalog


def test_every_fixed_gpu_machine_names_a_known_model() -> None:
    cat = load_catalog()
    assert all(m.accelerator_type in cat.gpu_models for m in cat.gpu_machines.values())


def test_each_model_count_has_at_most_one_default_machine() -> None:
    cat = load_catalog()
    pairs = [(m.accelerator_type, m.count) for m in cat.gpu_machines.values() if m.default]
    assert len(pairs) == len(set(pairs))


def test_every_n1_gpu_has_limits_and_a_default_host_per_count() -> None:
    cat = load_catalog()
    n1 = {name for name, m in cat.gpu_models.items() if m.attach == "n1"}
    assert n1 == set(cat.n1_limits)
    assert all(count in cat.n1_default_host for limits in cat.n1_limits.values() for count in limits)


def test_tpu_facts_match_the_reference() -> None:
    cat = load_catalog()
    assert cat.tpu_generations["v5e"].label == "tpu-v5-lite-podslice"
    assert cat.tpu_generations["v5p"].max_chips == 6144  # 96 cubes, the documented maximum
    assert cat.tpu_generations["tpu7x"].multihost_placement == "workload_policy"
    assert cat.tpu_generations["v6e"].machine_types == {
        "ct6e-standard-1t": 1,
        "ct6e-standard-4t": 4,
        "ct6e-standard-8t": 8,
    }


def test_prices_carry_a_source_date_and_cover_the_tpu_generations_priced_publicly() -> None:
    prices = load_catalog().prices
    assert prices.source_date == "2026-07-30" and prices.hours_per_month == 730
    assert set(prices.tpu_per_chip_hour) == {"v4", "v5e", "v5p", "v6e"}


def test_gpu_lookup_accepts_aliases_and_accelerator_types() -> None:
    cat = load_catalog()
    assert cat.gpu_model("H100") is cat.gpu_model("nvidia-h100-80gb")
    assert cat.gpu_model("nope") is None
