"""Test helpers: a small valid config to mutate, and lookups in synthesized Terraform JSON."""

from __future__ import annotations

import copy
from typing import Any

import yaml


def base_config() -> dict[str, Any]:
    """A small valid environment used as the starting point of rule tests."""
    return {
        "environment": "test",
        "project_id": "acme-ml-test",
        "region": "us-central1",
        "cluster": {
            "name": "ml-test",
            "location": "us-central1",
            "node_zones": ["us-central1-a", "us-central1-b"],
            "deletion_protection": False,
            "rbac_security_group": "gke-security-groups@acme.example.com",
            "master_authorized_networks": [{"cidr": "10.0.0.0/8", "name": "corp"}],
        },
        "tpu_pools": [{"name": "v5e", "generation": "v5e", "topology": "2x2", "zone": "us-central1-a"}],
        "gpu_pools": [{"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2}],
    }


def set_path(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Copy ``data`` with ``path`` (dotted, with [i] indexes) set to ``value``."""
    out = copy.deepcopy(data)
    node: Any = out
    parts = path.replace("[", ".").replace("]", "").split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def to_yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def resources(doc: dict[str, Any], rtype: str) -> list[dict[str, Any]]:
    return list(doc.get("resource", {}).get(rtype, {}).values())


def one(doc: dict[str, Any], rtype: str, **match: Any) -> dict[str, Any]:
    found = [r for r in resources(doc, rtype) if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, f"expected one {rtype} matching {match}, found {len(found)}"
    return found[0]
