"""Validation rules, one family: consumption exclusions (C5-C12): Spot, reservations, queued provisioning, flex-start.

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
    # --- consumption exclusions (C5-C12) ---
    Rule(
        "spot-no-reservation",
        f"{GPU}.consumption",
        {"type": "spot"},
        {"type": "spot", "reservation": "r1"},
        f"{GPU}.consumption.reservation",
        "Spot VMs cannot consume reservations",
    ),
    Rule(
        "affinity-only-reservation",
        f"{GPU}.consumption",
        {"type": "reservation", "affinity": "any"},
        {"type": "flex-start", "affinity": "any"},
        f"{GPU}.consumption.affinity",
        "only used with type",
    ),
    Rule(
        "specific-needs-name",
        f"{GPU}.consumption",
        {"type": "reservation", "reservation": "r1"},
        {"type": "reservation", "affinity": "specific"},
        f"{GPU}.consumption.reservation",
        "is required",
    ),
    Rule(
        "any-no-name",
        f"{GPU}.consumption",
        {"type": "reservation", "affinity": "any"},
        {"type": "reservation", "affinity": "any", "reservation": "r1"},
        f"{GPU}.consumption.reservation",
        "only used with affinity 'specific'",
    ),
    Rule(
        "run-duration-flex-only",
        f"{GPU}.consumption",
        {"type": "flex-start", "max_run_duration_seconds": 3600},
        {"type": "spot", "max_run_duration_seconds": 3600},
        f"{GPU}.consumption.max_run_duration_seconds",
        "only used with type",
        {"queues": {}},
    ),
    Rule(
        "run-duration-7-days",
        f"{GPU}.consumption",
        {"type": "flex-start", "max_run_duration_seconds": 604800},
        {"type": "flex-start", "max_run_duration_seconds": 604801},
        f"{GPU}.consumption.max_run_duration_seconds",
        "out of range",
        {"queues": {}},
    ),
    Rule(
        "consumption-type", f"{GPU}.consumption", "spot", "preemptible", f"{GPU}.consumption", "not a valid choice"
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)
