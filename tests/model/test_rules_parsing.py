"""Validation rules, one family: parsing: unknown keys, types, required fields.

Each rule has an accepted and a rejected case: one config path set to a good value (must load) and
to a bad value (must fail with an issue at the expected path whose message contains the expected
text); ``setup`` applies first. The other families are the sibling ``test_rules_*.py`` modules;
``all_rules.RULES`` holds them all.
"""

from __future__ import annotations

import pytest
from rule_paths import GPU

from helpers import Rule, assert_rule_accepts, assert_rule_rejects

RULES = [
    # --- parsing ---
    Rule(
        "unknown-key",
        f"{GPU}",
        {"name": "l4", "gpu": "l4"},
        {"name": "l4", "gpu": "l4", "gpus_per_nod": 1},
        f"{GPU}.gpus_per_nod",
        "did you mean 'gpus_per_node'",
    ),
    Rule("type-int", f"{GPU}.max_nodes", 3, "three", f"{GPU}.max_nodes", "should be a whole number"),
    Rule("type-bool-not-int", f"{GPU}.max_nodes", 1, True, f"{GPU}.max_nodes", "should be a whole number"),
    Rule(
        "type-list", "cluster.node_zones", ["us-central1-a"], "us-central1-a", "cluster.node_zones", "should be a list"
    ),
    Rule(
        "required-field",
        "cluster",
        {"name": "c", "location": "us-central1-a"},
        {"location": "us-central1-a"},
        "cluster.name",
        "is required",
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)
