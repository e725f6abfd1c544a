"""``depends_on`` holds bare resource addresses: Terraform refuses an interpolation there
("A single static variable reference is required"), which only `terraform validate` would show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ENVIRONMENTS = ("dev", "staging", "prod")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_depends_on_lists_bare_addresses(env: str, shipped_stacks: Path) -> None:
    doc = json.loads((shipped_stacks / env / "cdk.tf.json").read_text())
    entries = [
        (f"{rtype}.{name}", dep)
        for rtype, resources in doc["resource"].items()
        for name, body in resources.items()
        for dep in body.get("depends_on", [])
    ]
    assert entries, "the stack declares no dependencies at all"
    bad = [(who, dep) for who, dep in entries if "${" in dep or dep.count(".") != 1]
    assert bad == []
    assert any(dep.startswith("google_project_service.") for _, dep in entries)
