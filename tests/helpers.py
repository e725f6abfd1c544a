"""Test helpers: a small valid config to mutate, and lookups in synthesized Terraform JSON."""

from __future__ import annotations

import copy
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError, load_environment_text

OMIT: Any = object()  # with set_path: remove the key instead of setting it


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
    elif value is OMIT:
        node.pop(last, None)
    else:
        node[last] = value
    return out


@dataclass(frozen=True)
class Rule:
    """A validation rule's test case: ``setup`` applies first; ``path`` set to ``good`` must load,
    set to ``bad`` must fail with an issue at ``issue_path`` whose rendering contains ``text``."""

    id: str
    path: str
    good: Any
    bad: Any
    issue_path: str
    text: str
    setup: dict[str, Any] = field(default_factory=dict)


def rule_config(rule: Rule, value: Any) -> dict[str, Any]:
    data = base_config()
    for path, v in rule.setup.items():
        data = set_path(data, path, v)
    return set_path(data, rule.path, value)


def assert_rule_accepts(rule: Rule) -> None:
    load_environment_text(to_yaml(rule_config(rule, rule.good)))


def assert_rule_rejects(rule: Rule) -> None:
    with pytest.raises(ConfigError) as info:
        load_environment_text(to_yaml(rule_config(rule, rule.bad)))
    matching = [i for i in info.value.issues if i.path == rule.issue_path]
    assert matching, f"no issue at {rule.issue_path}; got: {info.value.render()}"
    rendered = " ".join(i.render() for i in matching)
    assert rule.text in rendered, rendered


def to_yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def resources(doc: dict[str, Any], rtype: str) -> list[dict[str, Any]]:
    return list(doc.get("resource", {}).get(rtype, {}).values())


def one(doc: dict[str, Any], rtype: str, **match: Any) -> dict[str, Any]:
    found = [r for r in resources(doc, rtype) if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, f"expected one {rtype} matching {match}, found {len(found)}"
    return found[0]


# The ResourceQuota-only mode (no `queues:`): the shipped dev config as it was before dev installed
# the queues (issue #29). Tests of "an environment without Kueue" load this file.
QUOTA_ONLY_CONFIG = Path(__file__).resolve().parent / "fixtures" / "configs" / "quota-only.yaml"


def load_script(relative: str, name: str) -> ModuleType:
    """A script of the repository (not a package module, e.g. ``tools/terraform/local_stack.py``), loaded by path."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass in the script looks its module up there
    spec.loader.exec_module(module)
    return module


class FakeClock:
    """A monotonic clock that moves only when slept on (the virtual runner's ``clock``/``sleep``)."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, dt: float) -> None:
        self.t += dt
