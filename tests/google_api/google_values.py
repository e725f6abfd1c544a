"""Checks every ``google_container_cluster`` / ``google_container_node_pool`` block of a synthesized
stack against Google's own machine-readable descriptions:

- the google provider's schema (``terraform providers schema -json`` of the built provider): every
  attribute and block we write must exist there and must not be marked ``deprecated``;
- GKE's REST discovery documents (container v1, then v1beta1, from the ``google.golang.org/api`` Go
  module, tools/google_api/discovery.sh): every enum-like value must be a value of the API field it
  is sent as (``field_map.py``) and not one Google marks deprecated (``enumDeprecated``), and the field
  itself must not be deprecated.

A finding names the source (config file), the resource address, the field path, the value and what
Google's document says. Nothing here knows which values are right: that comes from the documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from field_map import FIELD_MAP, Api, Documented, ProviderOnly

RESOURCE_TYPES = ("google_container_cluster", "google_container_node_pool")
GOOGLE = "registry.terraform.io/hashicorp/google"
# Terraform meta-arguments and cdktf's comment key: not provider attributes.
META = frozenset({"//", "count", "depends_on", "for_each", "lifecycle", "provider", "provisioner", "connection"})
ENUM_LIKE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
API_VERSIONS = ("v1", "v1beta1")  # the GA provider's API first


@dataclass(frozen=True)
class Finding:
    source: str  # the config the stack came from
    address: str  # resource type.name
    path: str  # dotted Terraform path
    value: Any
    problem: str

    def __str__(self) -> str:
        return f"{self.source}: {self.address}.{self.path} = {self.value!r}: {self.problem}"


@dataclass(frozen=True)
class Documents:
    discovery: dict[str, dict[str, Any]]  # API version -> discovery document
    provider: dict[str, Any]  # resource type -> provider schema block
    discovery_source: str  # e.g. "google.golang.org/api@v0.316.0 (container v1 revision 20261027)"
    provider_version: str

    @classmethod
    def load(cls, discovery_dir: Path, provider_schema: dict[str, Any], provider_version: str) -> Documents:
        docs = {v: json.loads((discovery_dir / f"container-{v}.json").read_text()) for v in API_VERSIONS}
        module = (discovery_dir / "SOURCE").read_text().split()[0]
        revisions = ", ".join(f"{v} revision {d.get('revision', '?')}" for v, d in docs.items())
        schemas = provider_schema["provider_schemas"][GOOGLE]["resource_schemas"]
        return cls(
            discovery=docs,
            provider={t: schemas[t]["block"] for t in RESOURCE_TYPES},
            discovery_source=f"{module} (container {revisions})",
            provider_version=provider_version,
        )

    def api_property(self, schema: str, prop: str) -> tuple[str, dict[str, Any]] | None:
        """(API version, the property's description) from the first document that has it."""
        for version in API_VERSIONS:
            found = self.discovery[version]["schemas"].get(schema, {}).get("properties", {}).get(prop)
            if found is not None:
                return version, found
        return None


@dataclass
class Report:
    findings: list[Finding]
    checked: dict[str, set[str]]  # "type:path" -> values checked against a document
    attributes: int  # provider attributes and blocks looked up


def _blocks(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for rtype in RESOURCE_TYPES:
        for name, body in doc.get("resource", {}).get(rtype, {}).items():
            yield rtype, f"{rtype}.{name}", body


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def check_schema(
    rtype: str, address: str, body: dict[str, Any], block: dict[str, Any], source: str, path: str = ""
) -> tuple[list[Finding], int]:
    """Every key of ``body`` against the provider schema ``block``: unknown or deprecated fails."""
    findings, looked = [], 0
    attributes, blocks = block.get("attributes", {}), block.get("block_types", {})
    for key, value in body.items():
        if not path and key in META:
            continue
        where = f"{path}.{key}" if path else key
        looked += 1
        if key in attributes:
            if attributes[key].get("deprecated"):
                note = attributes[key].get("description", "").strip()
                findings.append(Finding(source, address, where, value, f"deprecated in the google provider: {note}"))
        elif key in blocks:
            nested = blocks[key]["block"]
            if nested.get("deprecated"):
                findings.append(Finding(source, address, where, "{...}", "a block the google provider deprecates"))
            for item in _items(value):
                if isinstance(item, dict):
                    more, n = check_schema(rtype, address, item, nested, source, where)
                    findings += more
                    looked += n
        else:
            findings.append(Finding(source, address, where, value, "not an attribute or block of the google provider"))
    return findings, looked


def _strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(dotted path, string) of every string leaf, lists flattened (no indexes)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if not path and key in META:
                continue
            yield from _strings(inner, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner, path)
    elif isinstance(value, str):
        yield path, value


def _provider_description(block: dict[str, Any], path: str) -> str:
    *parents, leaf = path.split(".")
    for part in parents:
        block = block.get("block_types", {}).get(part, {}).get("block", {})
    return str(block.get("attributes", {}).get(leaf, {}).get("description", ""))


def check_value(docs: Documents, rtype: str, path: str, value: str) -> str | None:
    """What is wrong with sending ``value`` at ``path`` (None: nothing)."""
    entry = FIELD_MAP.get((rtype, path))
    if entry is None:
        return "an enum-like value at a path tests/google_api/field_map.py does not map to a GKE API field"
    if isinstance(entry, ProviderOnly):
        described = _provider_description(docs.provider[rtype], path)
        if not re.search(rf"\b{re.escape(value)}\b", described):
            return f"not named in the google provider's description of the attribute: {described!r}"
        return None
    if isinstance(entry, Documented):
        return None if value in entry.values else f"not a value {entry.source} lists: {sorted(entry.values)}"
    assert isinstance(entry, Api)
    found = docs.api_property(entry.schema, entry.prop)
    if found is None:
        return f"field_map.py maps it to {entry.schema}.{entry.prop}, which no container discovery document has"
    version, prop = found
    field = f"{entry.schema}.{entry.prop} (container {version})"
    described = prop.get("items", prop)
    values = described.get("enum")
    if values is None:
        return f"{field} has no enum in the discovery document"
    if value not in values:
        return f"not a value of {field}: {values}"
    i = values.index(value)
    if (described.get("enumDeprecated") or [False] * len(values))[i]:
        return f"{field} marks {value} deprecated: {described.get('enumDescriptions', [''] * len(values))[i]}"
    if prop.get("deprecated") and value not in entry.deprecated_field_values:
        return f"{field} is deprecated: {prop.get('description', '')}"
    return None


def check_stack(docs: Documents, doc: dict[str, Any], source: str) -> Report:
    """Every google_container_* block of one synthesized stack (``cdk.tf.json``)."""
    report = Report(findings=[], checked={}, attributes=0)
    for rtype, address, body in _blocks(doc):
        findings, looked = check_schema(rtype, address, body, docs.provider[rtype], source)
        report.findings += findings
        report.attributes += looked
        for path, value in _strings(body):
            if "${" in value or not ENUM_LIKE.fullmatch(value):
                continue  # references, names, CIDRs, machine types: not enum-like
            problem = check_value(docs, rtype, path, value)
            if problem is not None:
                report.findings.append(Finding(source, address, path, value, problem))
            report.checked.setdefault(f"{rtype}:{path}", set()).add(value)
    return report
