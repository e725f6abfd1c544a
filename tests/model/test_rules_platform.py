"""Validation rules, one family: teams, quotas, priority classes, checkpoints, driver installer.

Each rule has an accepted and a rejected case: one config path set to a good value (must load) and
to a bad value (must fail with an issue at the expected path whose message contains the expected
text); ``setup`` applies first. The other families are the sibling ``test_rules_*.py`` modules;
``all_rules.RULES`` holds them all.
"""

from __future__ import annotations

import pytest
from rule_paths import ONE_TEAM, TEAM, TEAMS

from helpers import Rule, assert_rule_accepts, assert_rule_rejects

RULES = [
    # --- teams, quotas, priority classes, checkpoints, driver installer (in-cluster platform) ---
    Rule("team-name", f"{TEAM}.name", "nlp", "NLP_team", f"{TEAM}.name", "not a DNS-1123 label", TEAMS),
    Rule("team-name-length", f"{TEAM}.name", "speech", "a-very-long-team-name-xyz", f"{TEAM}.name", "too long", TEAMS),
    Rule(
        "team-unique",
        "teams",
        [ONE_TEAM, {**ONE_TEAM, "name": "cv"}],
        [ONE_TEAM, ONE_TEAM],
        "teams[1].name",
        "used by another team",
    ),
    Rule(
        "team-namespace",
        f"{TEAM}.namespace",
        "nlp-prod",
        "kube-system",
        f"{TEAM}.namespace",
        "not a namespace a team may own",
        TEAMS,
    ),
    Rule(
        "team-group",
        f"{TEAM}.google_group",
        "ml@acme.example.com",
        "ml-team",
        f"{TEAM}.google_group",
        "not a Google group address",
        TEAMS,
    ),
    Rule(
        "team-accelerator-known",
        f"{TEAM}.accelerators",
        {"l4": 1},
        {"l5": 1},
        f"{TEAM}.accelerators.l5",
        "not a GPU model, split GPU or TPU generation",
        TEAMS,
    ),
    Rule(
        "team-quota-negative",
        f"{TEAM}.accelerators",
        {"l4": 0},
        {"l4": -1},
        f"{TEAM}.accelerators.l4",
        "out of range",
        TEAMS,
    ),
    Rule(
        "team-quota-integer",
        f"{TEAM}.accelerators",
        {"l4": 1},
        {"l4": 1.5},
        f"{TEAM}.accelerators.l4",
        "should be a whole number",
        TEAMS,
    ),
    Rule(
        "team-quota-provided",
        f"{TEAM}.accelerators",
        {"v5e": 4},
        {"h100": 8},
        f"{TEAM}.accelerators.h100",
        "no pool of this environment provides",
        TEAMS,
    ),
    Rule("team-pods", f"{TEAM}.pods", 1, 0, f"{TEAM}.pods", "out of range", TEAMS),
    Rule(
        "team-priority-defined",
        f"{TEAM}.priority_classes",
        ["training"],
        ["urgent"],
        f"{TEAM}.priority_classes[0]",
        "not a defined priority class",
        TEAMS,
    ),
    Rule(
        "strict-capacity",
        "strict_capacity",
        False,
        True,
        "teams",
        "add up to 5 GPUs",
        {"teams": [{**ONE_TEAM, "accelerators": {"l4": 5}}]},
    ),
    Rule(
        "priority-name",
        "platform.priority_classes.inference",
        {"name": "serve", "value": 100000},
        {"name": "system-serve", "value": 100000},
        "platform.priority_classes.inference.name",
        "not a valid priority class name",
    ),
    Rule(
        "priority-unique",
        "platform.priority_classes.training",
        {"name": "training", "value": 10000},
        {"name": "inference", "value": 10000},
        "platform.priority_classes.training.name",
        "used by another",
    ),
    Rule(
        "priority-order",
        "platform.priority_classes.batch",
        {"name": "batch", "value": 10},
        {"name": "batch", "value": 20000},
        "platform.priority_classes",
        "must order inference above training",
    ),
    Rule(
        "priority-range",
        "platform.priority_classes.inference",
        {"name": "inference", "value": 1000000000},
        {"name": "inference", "value": 1000000001},
        "platform.priority_classes.inference.value",
        "out of range",
    ),
    Rule(
        "checkpoint-bucket",
        "platform.checkpoints",
        {"bucket": "acme-ckpt"},
        {"bucket": "Acme_Ckpt"},
        "platform.checkpoints.bucket",
        "not a valid bucket name",
    ),
    Rule(
        "checkpoint-bucket-not-ip",
        "platform.checkpoints",
        {"bucket": "ckpt.10.0.0.1"},
        {"bucket": "192.168.5.4"},
        "platform.checkpoints.bucket",
        "not an IP address",
    ),
    Rule(
        "checkpoint-days",
        "platform.checkpoints",
        {"noncurrent_version_days": 1},
        {"noncurrent_version_days": 0},
        "platform.checkpoints.noncurrent_version_days",
        "out of range",
    ),
    Rule(
        "kubernetes-version",
        "platform.kubernetes_version",
        "1.34",
        "2.0",
        "platform.kubernetes_version",
        "not a supported Kubernetes minor version",
    ),
    Rule(
        "driver-variants",
        "platform.driver_installer.multiple_variants",
        True,
        False,
        "platform.driver_installer.multiple_variants",
        "need 2 installer variants",
        {
            "gpu_pools": [
                {"name": "cos", "gpu": "l4", "driver_mode": "daemonset"},
                {
                    "name": "ubu",
                    "gpu": "l4",
                    "driver_mode": "daemonset",
                    "image_type": "UBUNTU_CONTAINERD",
                    "driver_version": "R570",
                },
            ]
        },
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)
