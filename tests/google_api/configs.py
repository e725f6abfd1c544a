"""The environments whose synthesized ``google_container_*`` blocks are checked against Google's
descriptions: every shipped config (``config/*.yaml``), the quota-only fixture, the capacity-ladder
config (every way a pool gets capacity), and one config that turns on what the shipped ones leave off
(node auto-provisioning, IP access, posture off, queued/flex-start/reservation pools, MIG, GPU
sharing, the DaemonSet driver on Ubuntu, a tpu7x multi-host slice with a workload policy).."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from helpers import QUOTA_ONLY_CONFIG, base_config
from ladder_config import ladder_config

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "config").glob("*.yaml"))


def everything_on() -> dict[str, Any]:
    data = base_config()
    cluster = data["cluster"]
    cluster["control_plane_access"] = "ip"
    cluster["deployer_cidr"] = "10.8.0.0/24"
    cluster["security_posture"] = "disabled"
    cluster["auto_provisioning"] = {"enabled": True, "accelerators": {"h100": 16, "v6e": 32}}
    cluster["maintenance"] = {
        "exclusions": [
            {
                "name": "freeze",
                "start_time": "2027-01-10T00:00:00Z",
                "scope": "NO_MINOR_UPGRADES",
                "end_time_behavior": "UNTIL_END_OF_SUPPORT",
            },
        ]
    }
    data["tpu_pools"] = [
        {"name": "v5e", "generation": "v5e", "topology": "2x2", "zone": "us-central1-a"},
        {"name": "iw", "generation": "tpu7x", "topology": "2x2x2", "zone": "us-central1-c", "max_slices": 2},
    ]
    data["gpu_pools"] = [
        {
            "name": "res",
            "gpu": "h100",
            "gpus_per_node": 8,
            "consumption": {"type": "reservation", "reservation": "h100-res"},
        },
        {"name": "queued", "gpu": "a100", "gpus_per_node": 8, "consumption": "queued"},
        {"name": "flex", "gpu": "l4", "consumption": {"type": "flex-start", "max_run_duration_seconds": 86400}},
        {
            "name": "mig",
            "gpu": "a100",
            "partition_size": "1g.5gb",
            "sharing": {"strategy": "time-sharing", "max_clients": 2},
        },
        {"name": "mps", "gpu": "l4", "sharing": {"strategy": "mps", "max_clients": 4}},
        {"name": "ds", "gpu": "l4", "driver_mode": "daemonset", "image_type": "UBUNTU_CONTAINERD"},
        {"name": "latest", "gpu": "t4", "driver_version": "latest"},
    ]
    data["queues"] = {}
    return data


def check_configs() -> dict[str, dict[str, Any]]:
    """{source label: config data}; the label names the file (or the test config) a finding comes from."""
    out = {str(p.relative_to(ROOT)): yaml.safe_load(p.read_text()) for p in SHIPPED}
    out[str(QUOTA_ONLY_CONFIG.relative_to(ROOT))] = yaml.safe_load(QUOTA_ONLY_CONFIG.read_text())
    out["tests/ladder_config.py:ladder_config()"] = ladder_config()
    out["tests/google_api/configs.py:everything_on()"] = everything_on()
    return out
