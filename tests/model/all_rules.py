"""Every validation rule case of the ``test_rules_*.py`` family modules, in one list (the schema test
checks each accepted config against the JSON Schema)."""

from __future__ import annotations

import test_rules_cluster
import test_rules_consumption
import test_rules_gpu
import test_rules_parsing
import test_rules_platform
import test_rules_tpu

from helpers import Rule

FAMILIES = {
    "tpu": test_rules_tpu.RULES,
    "gpu": test_rules_gpu.RULES,
    "consumption": test_rules_consumption.RULES,
    "cluster": test_rules_cluster.RULES,
    "platform": test_rules_platform.RULES,
    "parsing": test_rules_parsing.RULES,
}
RULES: list[Rule] = [rule for rules in FAMILIES.values() for rule in rules]
