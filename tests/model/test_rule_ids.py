"""The rule cases of all families together: ids unique across the ``test_rules_*.py`` modules (a test id
names one rule), and every family module is listed in ``all_rules``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from all_rules import FAMILIES, RULES


def test_rule_ids_are_unique() -> None:
    repeated = [rule_id for rule_id, n in Counter(r.id for r in RULES).items() if n > 1]
    assert repeated == []


def test_every_family_module_is_in_all_rules() -> None:
    modules = {p.stem.removeprefix("test_rules_") for p in Path(__file__).parent.glob("test_rules_*.py")}
    assert modules == set(FAMILIES)
