"""Every validation rule, each with an accepted and a rejected case.

A case sets one config path to a good value (must load) and to a bad value (must fail with an
issue at the expected path whose message contains the expected text). ``setup`` applies first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gke_accel.model import ConfigError, load_environment_text
from helpers import base_config, set_path, to_yaml


@dataclass(frozen=True)
class Rule:
    id: str
    path: str
    good: Any
    bad: Any
    issue_path: str
    text: str
    setup: dict[str, Any] = field(default_factory=dict)


TPU = "tpu_pools[0]"
GPU = "gpu_pools[0]"
TEAM = "teams[0]"
ONE_TEAM = {"name": "nlp", "google_group": "ml-nlp@acme.example.com", "accelerators": {"l4": 1, "v5e": 4}}
TEAMS = {"teams": [ONE_TEAM]}
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
        {f"{TPU}.consumption": "flex-start"},
    ),
    Rule(
        "tpu-queued-min-zero",
        f"{TPU}.min_slices",
        0,
        1,
        f"{TPU}.min_slices",
        "must be 0 with queued",
        {f"{TPU}.consumption": "queued"},
    ),
    Rule("tpu-min-le-max", f"{TPU}.min_slices", 2, 3, f"{TPU}.min_slices", "out of range", {f"{TPU}.max_slices": 2}),
    Rule("tpu-max-slices", f"{TPU}.max_slices", 1, 0, f"{TPU}.max_slices", "out of range"),
    Rule("tpu-disk", f"{TPU}.disk_size_gb", 10, 9, f"{TPU}.disk_size_gb", "too small"),
    Rule("pool-name", f"{TPU}.name", "v5e-a", "V5E_a", f"{TPU}.name", "not a valid node pool name"),
    Rule("pool-name-unique", f"{GPU}.name", "l4", "v5e", f"{GPU}.name", "already used"),
    Rule("pool-name-system", f"{GPU}.name", "l4", "system", f"{GPU}.name", "already used"),
    Rule("pool-labels", f"{GPU}.labels", {"team": "nlp"}, {"Team": "x"}, f"{GPU}.labels.Team", "not a valid label key"),
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
        {f"{GPU}.consumption": "queued", f"{GPU}.zones": ["us-central1-a"]},
    ),
    Rule(
        "queued-min-zero",
        f"{GPU}.min_nodes",
        0,
        1,
        f"{GPU}.min_nodes",
        "must be 0 with queued",
        {f"{GPU}.consumption": "queued"},
    ),
    Rule(
        "flex-no-static",
        f"{GPU}.node_count",
        None,
        2,
        f"{GPU}.node_count",
        "must autoscale",
        {f"{GPU}.consumption": "flex-start", f"{GPU}.max_nodes": None},
    ),
    Rule("gpu-zone-region", f"{GPU}.zones", ["us-central1-c"], ["us-east1-b"], f"{GPU}.zones[0]", "not a zone"),
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
    ),
    Rule(
        "run-duration-7-days",
        f"{GPU}.consumption",
        {"type": "flex-start", "max_run_duration_seconds": 604800},
        {"type": "flex-start", "max_run_duration_seconds": 604801},
        f"{GPU}.consumption.max_run_duration_seconds",
        "out of range",
    ),
    Rule(
        "consumption-type", f"{GPU}.consumption", "spot", "preemptible", f"{GPU}.consumption.type", "not a valid choice"
    ),
    # --- cluster ---
    Rule("cluster-name", "cluster.name", "ml-a", "ML_A", "cluster.name", "not a valid cluster name"),
    Rule(
        "cluster-location",
        "cluster.location",
        "us-central1-a",
        "us-east1",
        "cluster.location",
        "is not region us-central1",
        {"cluster.node_zones": []},
    ),
    Rule(
        "regional-needs-zones", "cluster.node_zones", ["us-central1-a"], [], "cluster.node_zones", "must list the zones"
    ),
    Rule(
        "cluster-zone-region",
        "cluster.node_zones",
        ["us-central1-a"],
        ["us-central1-a", "us-east1-b"],
        "cluster.node_zones[1]",
        "not a zone of region",
    ),
    Rule(
        "cidr-valid",
        "cluster.network",
        {"subnet_cidr": "10.30.0.0/20"},
        {"subnet_cidr": "10.30.0.1/20"},
        "cluster.network.subnet_cidr",
        "not a valid IPv4 CIDR",
    ),
    Rule(
        "master-cidr-28",
        "cluster.network",
        {"master_cidr": "172.16.0.16/28"},
        {"master_cidr": "172.16.0.0/27"},
        "cluster.network.master_cidr",
        "must be a /28",
    ),
    Rule(
        "ranges-overlap",
        "cluster.network",
        {"pods_cidr": "10.64.0.0/14"},
        {"pods_cidr": "10.8.0.0/14"},
        "cluster.network.pods_cidr",
        "overlaps subnet_cidr",
    ),
    Rule(
        "existing-network-names",
        "cluster.network",
        {"create": False, "network": "n", "subnetwork": "s"},
        {"create": False, "network": "n"},
        "cluster.network.create",
        "needs existing",
    ),
    Rule(
        "authorized-cidr",
        "cluster.master_authorized_networks",
        [{"cidr": "192.168.0.0/16", "name": "vpn"}],
        [{"cidr": "192.168.0.0/33", "name": "vpn"}],
        "cluster.master_authorized_networks[0].cidr",
        "not a valid",
    ),
    Rule(
        "maintenance-order",
        "cluster.maintenance",
        {"start_time": "2025-01-04T03:00:00Z", "end_time": "2025-01-04T07:00:00Z"},
        {"start_time": "2025-01-04T03:00:00Z", "end_time": "2025-01-04T01:00:00Z"},
        "cluster.maintenance.end_time",
        "must be after start_time",
    ),
    Rule(
        "maintenance-rrule",
        "cluster.maintenance",
        {"recurrence": "FREQ=DAILY"},
        {"recurrence": "weekends"},
        "cluster.maintenance.recurrence",
        "not an RFC 5545 RRULE",
    ),
    Rule(
        "maintenance-time",
        "cluster.maintenance",
        {"start_time": "2025-01-04T03:00:00Z"},
        {"start_time": "saturday 3am"},
        "cluster.maintenance.start_time",
        "not an RFC 3339 time",
    ),
    Rule(
        "exclusion-unique",
        "cluster.maintenance",
        {"exclusions": [{"name": "a", "start_time": "2026-12-01T00:00:00Z", "end_time": "2026-12-02T00:00:00Z"}]},
        {
            "exclusions": [
                {"name": "a", "start_time": "2026-12-01T00:00:00Z", "end_time": "2026-12-02T00:00:00Z"},
                {"name": "a", "start_time": "2026-12-03T00:00:00Z", "end_time": "2026-12-04T00:00:00Z"},
            ]
        },
        "cluster.maintenance.exclusions[1].name",
        "used twice",
    ),
    Rule(
        "nap-accelerator",
        "cluster.auto_provisioning",
        {"enabled": True, "accelerators": {"l4": 8}},
        {"enabled": True, "accelerators": {"l5": 8}},
        "cluster.auto_provisioning.accelerators.l5",
        "not a GPU model or TPU generation",
    ),
    Rule(
        "nap-enabled",
        "cluster.auto_provisioning",
        {"enabled": True, "accelerators": {"v5e": 16}},
        {"enabled": False, "accelerators": {"v5e": 16}},
        "cluster.auto_provisioning.enabled",
        "must be true",
    ),
    Rule(
        "system-pool-bounds",
        "cluster.system_pool",
        {"min_nodes": 0, "max_nodes": 1},
        {"min_nodes": 2, "max_nodes": 1},
        "cluster.system_pool.min_nodes",
        "out of range",
    ),
    Rule(
        "release-channel", "cluster.release_channel", "STABLE", "LTS", "cluster.release_channel", "not a valid choice"
    ),
    # --- environment ---
    Rule("environment-name", "environment", "test-2", "Test", "environment", "not a valid environment name"),
    Rule("project-id", "project_id", "acme-ml-test2", "ACME", "project_id", "not a valid project ID"),
    Rule("region", "region", "us-central1", "us central", "region", "not a region name"),
    Rule(
        "gcs-needs-bucket",
        "backend",
        {"type": "gcs", "bucket": "b"},
        {"type": "gcs"},
        "backend.bucket",
        "is required for a gcs backend",
    ),
    Rule(
        "local-no-bucket",
        "backend",
        {"type": "local"},
        {"type": "local", "bucket": "b"},
        "backend.bucket",
        "only used with type 'gcs'",
    ),
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
        "not a GPU model or TPU generation",
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


def _load(data: dict[str, Any]) -> None:
    load_environment_text(to_yaml(data))


def _apply(rule: Rule, value: Any) -> dict[str, Any]:
    data = base_config()
    for path, v in rule.setup.items():
        data = set_path(data, path, v)
    return set_path(data, rule.path, value)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_accepts_good_value(rule: Rule) -> None:
    _load(_apply(rule, rule.good))


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_rejects_bad_value(rule: Rule) -> None:
    with pytest.raises(ConfigError) as info:
        _load(_apply(rule, rule.bad))
    matching = [i for i in info.value.issues if i.path == rule.issue_path]
    assert matching, f"no issue at {rule.issue_path}; got: {info.value.render()}"
    rendered = " ".join(i.render() for i in matching)
    assert rule.text in rendered, rendered


def test_rule_ids_are_unique() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
