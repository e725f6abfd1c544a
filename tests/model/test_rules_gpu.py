"""Validation rules, one family: GPU models and machines (G1-G3, N1 limits), MIG, sharing and the driver.

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
    # --- GPU models and machines (G1-G3, N1 limits) ---
    Rule("gpu-model", f"{GPU}.gpu", "h100", "h900", f"{GPU}.gpu", "not a known GPU model", {f"{GPU}.gpus_per_node": 8}),
    Rule("gpu-count", f"{GPU}.gpus_per_node", 2, 3, f"{GPU}.gpus_per_node", "not valid for nvidia-l4"),
    Rule("gpu-count-positive", f"{GPU}.gpus_per_node", 1, 0, f"{GPU}.gpus_per_node", "out of range"),
    Rule(
        "gpu-machine-known",
        f"{GPU}.machine_type",
        "g2-standard-8",
        "g2-standard-5",
        f"{GPU}.machine_type",
        "not a GPU machine type",
        {f"{GPU}.gpus_per_node": None},
    ),
    Rule(
        "gpu-machine-matches-model",
        f"{GPU}.machine_type",
        "g2-standard-24",
        "a2-highgpu-2g",
        f"{GPU}.gpu",
        "does not match machine type",
        {f"{GPU}.gpus_per_node": 2},
    ),
    Rule(
        "gpu-machine-matches-count",
        f"{GPU}.gpus_per_node",
        4,
        8,
        f"{GPU}.gpus_per_node",
        "does not match machine type",
        {f"{GPU}.machine_type": "g2-standard-48"},
    ),
    Rule(
        "n1-count",
        f"{GPU}.gpus_per_node",
        4,
        8,
        f"{GPU}.gpus_per_node",
        "not valid for nvidia-tesla-t4",
        {f"{GPU}.gpu": "t4"},
    ),
    Rule(
        "n1-host-limit",
        f"{GPU}.machine_type",
        "n1-standard-8",
        "n1-standard-16",
        f"{GPU}.machine_type",
        "too large",
        {f"{GPU}.gpu": "v100"},
    ),
    Rule(
        "n1-host-needs-n1-gpu",
        f"{GPU}.gpu",
        "t4",
        "l4",
        f"{GPU}.gpu",
        "must name a GPU that attaches",
        {f"{GPU}.machine_type": "n1-standard-8"},
    ),
    Rule(
        "mig-supported",
        f"{GPU}.gpu",
        "a100",
        "l4",
        f"{GPU}.partition_size",
        "no multi-instance GPU",
        {f"{GPU}.partition_size": "1g.5gb"},
    ),
    Rule(
        "mig-size",
        f"{GPU}.partition_size",
        "3g.20gb",
        "3g.40gb",
        f"{GPU}.partition_size",
        "not a MIG partition size of nvidia-tesla-a100",
        {f"{GPU}.gpu": "a100"},
    ),
    Rule(
        "sharing-clients",
        f"{GPU}.sharing",
        {"strategy": "mps", "max_clients": 48},
        {"strategy": "mps", "max_clients": 49},
        f"{GPU}.sharing.max_clients",
        "out of range",
    ),
    Rule(
        "sharing-strategy",
        f"{GPU}.sharing",
        {"strategy": "time-sharing", "max_clients": 4},
        {"strategy": "round-robin", "max_clients": 4},
        f"{GPU}.sharing.strategy",
        "not a valid choice",
    ),
    Rule(
        "latest-needs-cos",
        f"{GPU}.image_type",
        "COS_CONTAINERD",
        "UBUNTU_CONTAINERD",
        f"{GPU}.driver_version",
        "needs a COS image",
        {f"{GPU}.driver_version": "latest"},
    ),
    Rule(
        "daemonset-latest-not-ubuntu",
        f"{GPU}.image_type",
        "COS_CONTAINERD",
        "UBUNTU_CONTAINERD",
        f"{GPU}.driver_version",
        "is not possible",
        {f"{GPU}.driver_mode": "daemonset", f"{GPU}.driver_version": "latest"},
    ),
    Rule(
        "pinned-needs-daemonset",
        f"{GPU}.driver_mode",
        "daemonset",
        "gke-managed",
        f"{GPU}.driver_version",
        "pinned driver branch",
        {f"{GPU}.driver_version": "R570", f"{GPU}.image_type": "UBUNTU_CONTAINERD"},
    ),
    Rule(
        "daemonset-pinned-known",
        f"{GPU}.driver_version",
        "R570",
        "R999",
        f"{GPU}.driver_version",
        "not a driver version of the Ubuntu installer",
        {f"{GPU}.driver_mode": "daemonset", f"{GPU}.image_type": "UBUNTU_CONTAINERD"},
    ),
    Rule(
        "gke-driver-version",
        f"{GPU}.driver_version",
        "latest",
        "newest",
        f"{GPU}.driver_version",
        "not a GKE driver version",
    ),
    Rule(
        "daemonset-mig-needs-cos",
        f"{GPU}.image_type",
        "COS_CONTAINERD",
        "UBUNTU_CONTAINERD",
        f"{GPU}.partition_size",
        "Ubuntu DaemonSet has none",
        {f"{GPU}.driver_mode": "daemonset", f"{GPU}.gpu": "a100", f"{GPU}.partition_size": "1g.5gb"},
    ),
    Rule(
        "daemonset-mig-no-sharing",
        f"{GPU}.sharing",
        None,
        {"strategy": "time-sharing", "max_clients": 2},
        f"{GPU}.sharing",
        "cannot be combined with MIG",
        {f"{GPU}.driver_mode": "daemonset", f"{GPU}.gpu": "a100", f"{GPU}.partition_size": "1g.5gb"},
    ),
    Rule(
        "daemonset-model-supported",
        f"{GPU}.driver_mode",
        "gke-managed",
        "daemonset",
        f"{GPU}.driver_mode",
        "no installer variant",
        {f"{GPU}.gpu": "gb200", f"{GPU}.gpus_per_node": 4},
    ),
    Rule(
        "static-excludes-autoscaling",
        f"{GPU}.max_nodes",
        None,
        3,
        f"{GPU}.node_count",
        "cannot be combined",
        {f"{GPU}.node_count": 2},
    ),
    Rule("gpu-min-le-max", f"{GPU}.min_nodes", 2, 3, f"{GPU}.min_nodes", "out of range"),
    Rule(
        "compact-one-zone",
        f"{GPU}.zones",
        ["us-central1-a"],
        ["us-central1-a", "us-central1-b"],
        f"{GPU}.placement",
        "exactly one zone",
        {f"{GPU}.placement": "compact"},
    ),
    Rule(
        "queued-compact-gpu",
        f"{GPU}.placement",
        "none",
        "compact",
        f"{GPU}.placement",
        "queued provisioning",
        {f"{GPU}.consumption": "queued", f"{GPU}.zones": ["us-central1-a"], "queues": {}},
    ),
    Rule(
        "queued-min-zero",
        f"{GPU}.min_nodes",
        0,
        1,
        f"{GPU}.min_nodes",
        "must be 0 with queued",
        {f"{GPU}.consumption": "queued", "queues": {}},
    ),
    Rule(
        "flex-no-static",
        f"{GPU}.node_count",
        None,
        2,
        f"{GPU}.node_count",
        "must autoscale",
        {f"{GPU}.consumption": "flex-start", f"{GPU}.max_nodes": None, "queues": {}},
    ),
    Rule("gpu-zone-region", f"{GPU}.zones", ["us-central1-c"], ["us-east1-b"], f"{GPU}.zones[0]", "not a zone"),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)
