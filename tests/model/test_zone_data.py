"""The zone data (catalog/zones.yaml) matches the reference's own counts and rules."""

from __future__ import annotations

import re

from gke_accel.catalog import load_catalog, load_zone_facts

ZONE = re.compile(r"[a-z]+-[a-z]+[0-9]+-(?:ai[0-9]+[a-z]|[a-z])")


def test_regions_and_zones_match_the_regions_page() -> None:
    facts = load_zone_facts()
    assert len({z.rsplit("-", 1)[0] for z in facts.standard_zones}) == 43
    assert len(facts.standard_zones) == 130
    assert {"us-central1-f", "europe-west1-d", "us-east1-b"} <= facts.standard_zones
    assert "us-east1-a" not in facts.standard_zones  # us-east1 has b, c, d
    assert facts.tpu_only_zones == {"us-central2-b"}
    assert facts.as_of == "2026-10-01"


def test_zones_per_tpu_generation_match_the_reference_counts() -> None:
    facts = load_zone_facts()
    counts = {gen: len(facts.zones_for("tpu", gen)) for gen in ("v4", "v5e", "v5p", "v6e", "tpu7x")}
    assert counts == {"v4": 1, "v5e": 27, "v5p": 11, "v6e": 22, "tpu7x": 2}
    assert facts.tags("tpu", "us-central1-ai1a", "tpu7x") == ("doc",)


def test_every_zone_in_the_tables_is_well_formed_and_known() -> None:
    facts = load_zone_facts()
    catalog = load_catalog()
    for cells, names in ((facts.tpu, set(catalog.tpu_generations)), (facts.gpu, set(catalog.gpu_models))):
        for zone, row in cells.items():
            assert ZONE.fullmatch(zone), zone
            assert zone in facts.standard_zones | facts.tpu_only_zones | facts.ai_zones, zone
            assert set(row) <= names | {"nvidia-gb300"}, (zone, set(row) - names)


def test_gpu_cells_keep_the_disputed_and_partial_marks() -> None:
    facts = load_zone_facts()
    assert facts.tags("gpu", "us-west1-c", "nvidia-l4") == ("A", "disputed")
    assert facts.tags("gpu", "europe-west8-c", "nvidia-h100-80gb") == ("A-partial", "disputed")
    assert facts.tags("gpu", "asia-northeast3-c", "nvidia-h100-80gb") == ("D", "A-edge-only")
    assert facts.tags("gpu", "us-central1-a", "nvidia-l4") == ("D", "A")
    assert facts.tags("gpu", "africa-south1-a", "nvidia-tesla-t4") == ()


def test_tpu_generation_zones_come_from_the_zone_data() -> None:
    catalog = load_catalog()
    assert catalog.tpu_generations["v4"].zones == ("us-central2-b",)
    assert "europe-west4-a" in catalog.tpu_generations["v6e"].zones
    assert catalog.tpu_generations["tpu7x"].zones == ("us-central1-ai1a", "us-central1-c")
