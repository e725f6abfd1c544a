"""Validation rules, one family: TPU generations and topologies (catalog-facts T1-T6).

Each rule has an accepted and a rejected case: one config path set to a good value (must load) and
to a bad value (must fail with an issue at the expected path whose message contains the expected
text); ``setup`` applies first. The other families are the sibling ``test_rules_*.py`` modules;
``all_rules.RULES`` holds them all.
"""

from __future__ import annotations

import pytest
from rule_paths import GPU, TPU

from helpers import Rule, assert_rule_accepts, assert_rule_rejects

RULES = [
    # --- TPU generations and topologies (catalog-facts T1-T6) ---
    Rule(
        "tpu-generation",
        f"{TPU}.generation",
        "v6e",
        "v9",
        f"{TPU}.generation",
        "not a known TPU generation",
        {f"{TPU}.zone": "us-central1-b"},
    ),
    Rule("tpu-2d-topology", f"{TPU}.topology", "2x2", "3x3", f"{TPU}.topology", "not valid for v5e"),
    Rule("tpu-dimensions", f"{TPU}.topology", "2x4", "2x2x2", f"{TPU}.topology", "not a 2D topology"),
    Rule(
        "tpu-3d-multiple-of-4",
        f"{TPU}.topology",
        "4x4x8",
        "4x4x6",
        f"{TPU}.topology",
        "multiple of 4",
        {f"{TPU}.generation": "v5p"},
    ),
    Rule(
        "tpu-3d-order",
        f"{TPU}.topology",
        "4x4x8",
        "8x4x4",
        f"{TPU}.topology",
        "non-decreasing",
        {f"{TPU}.generation": "v5p"},
    ),
    Rule(
        "tpu-3d-max-chips",
        f"{TPU}.topology",
        "16x16x24",
        "16x16x32",
        f"{TPU}.topology",
        "too large",
        {f"{TPU}.generation": "v5p"},
    ),
    Rule(
        "tpu-single-chip-3d",
        f"{TPU}.generation",
        "tpu7x",
        "v5p",
        f"{TPU}.topology",
        "not valid for v5p",
        {f"{TPU}.topology": "1x1x1", f"{TPU}.zone": "us-central1-c", "cluster.node_zones": ["us-central1-c"]},
    ),
    Rule(
        "tpu-machine-type",
        f"{TPU}.machine_type",
        "ct5lp-hightpu-4t",
        "ct5lp-hightpu-8t",
        f"{TPU}.machine_type",
        "cannot run a v5e 4x4 slice",
        {f"{TPU}.topology": "4x4"},
    ),
    Rule(
        "tpu-multihost-zone",
        f"{TPU}.zone",
        "us-central1-a",
        None,
        f"{TPU}.zone",
        "is required",
        {f"{TPU}.topology": "4x4"},
    ),
    Rule("tpu-zone-offered", f"{TPU}.zone", "us-central1-a", "us-central1-f", f"{TPU}.zone", "does not offer v5e"),
    Rule(
        "tpu-zone-region",
        f"{TPU}.zone",
        "us-central1-a",
        "europe-west4-a",
        f"{TPU}.zone[0]",
        "not a zone of region us-central1",
    ),
    Rule(
        "tpu-flex-single-host",
        f"{TPU}.topology",
        "2x2",
        "4x4",
        f"{TPU}.consumption.type",
        "only available for single-host",
        {f"{TPU}.consumption": "flex-start", "queues": {}},
    ),
    Rule(
        "tpu-queued-min-zero",
        f"{TPU}.min_slices",
        0,
        1,
        f"{TPU}.min_slices",
        "must be 0 with queued",
        {f"{TPU}.consumption": "queued", "queues": {}},
    ),
    Rule("tpu-min-le-max", f"{TPU}.min_slices", 2, 3, f"{TPU}.min_slices", "out of range", {f"{TPU}.max_slices": 2}),
    Rule("tpu-max-slices", f"{TPU}.max_slices", 1, 0, f"{TPU}.max_slices", "out of range"),
    Rule("tpu-disk", f"{TPU}.disk_size_gb", 10, 9, f"{TPU}.disk_size_gb", "too small"),
    Rule("pool-name", f"{TPU}.name", "v5e-a", "V5E_a", f"{TPU}.name", "not a valid node pool name"),
    Rule("pool-name-unique", f"{GPU}.name", "l4", "v5e", f"{GPU}.name", "already used"),
    Rule("pool-name-system", f"{GPU}.name", "l4", "system", f"{GPU}.name", "already used"),
    Rule(
        "pool-labels-kubernetes-syntax",
        f"{GPU}.labels",
        {"Team": "NLP", "acme.example.com/tier": "gold.1"},
        {"-team": "x"},
        f"{GPU}.labels.-team",
        "not a valid Kubernetes label key",
    ),
    Rule(
        "pool-labels-reserved-prefix",
        f"{TPU}.labels",
        {"team": "nlp"},
        {"gke-accel/pool": "other"},
        f"{TPU}.labels.gke-accel/pool",
        "reserves",
    ),
    Rule("env-labels-gcp-syntax", "labels", {"env": "dev"}, {"Env": "dev"}, "labels.Env", "not a valid GCP label key"),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)
