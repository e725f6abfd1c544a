"""A production environment with one pool per role, for the lifecycle tests."""

from __future__ import annotations

from typing import Any

from helpers import base_config


def production_roles() -> dict[str, Any]:
    """Training (role set) on a v5e 2x4 slice of two ct5lp-hightpu-4t VMs, inference (from the serving
    team's only class) on L4, batch (role set) on L4 with host maintenance PERIODIC, a disruption budget."""
    data = base_config()
    data["production"] = True
    data["backend"] = {"type": "gcs", "bucket": "acme-ml-tfstate", "prefix": "gke-accel/test"}
    data["cluster"]["deletion_protection"] = True
    data["cluster"]["binary_authorization"] = {"mode": "audit"}
    data["cluster"]["maintenance"] = {"disruption_budget": {"minor_interval_days": 45, "patch_interval_hours": 72}}
    data["tpu_pools"] = [
        {
            "name": "train",
            "generation": "v5e",
            "topology": "2x4",
            "machine_type": "ct5lp-hightpu-4t",
            "zone": "us-central1-a",
            "role": "training",
        }
    ]
    data["gpu_pools"] = [
        {"name": "serve", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 4},
        {
            "name": "sweep",
            "gpu": "l4",
            "gpus_per_node": 1,
            "max_nodes": 2,
            "role": "batch",
            "lifecycle": {"host_maintenance": "PERIODIC"},
        },
    ]
    data["teams"] = [
        {
            "name": "serving",
            "google_group": "ml-serving@acme.example.com",
            "accelerators": {"l4": 2},
            "priority_classes": ["inference"],
        }
    ]
    return data
