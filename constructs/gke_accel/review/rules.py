"""Which attribute changes replace a resource, as data (``force_new.yaml``), and the lookups on it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Literal

import yaml

Effect = Literal[
    "force_new", "not_updatable", "recreates_nodes", "identity", "replace_trigger", "adds_nodes", "removes_nodes"
]
_INDEX = re.compile(r"\[\d+\]")


def normalize(path: str) -> str:
    """``node_config.guest_accelerator[0].count`` -> ``node_config.guest_accelerator.count``."""
    return _INDEX.sub("", path)


@dataclass(frozen=True)
class PathSet:
    """Attribute paths; ``x.*`` covers x and everything beneath it, ``*`` covers every path."""

    exact: frozenset[str] = frozenset()
    subtrees: frozenset[str] = frozenset()
    everything: bool = False

    @classmethod
    def of(cls, paths: list[str]) -> PathSet:
        exact = {p for p in paths if not p.endswith("*")}
        subtrees = {p[:-2] for p in paths if p.endswith(".*")}
        return cls(frozenset(exact), frozenset(subtrees), "*" in paths)

    def matches(self, path: str) -> bool:
        norm = normalize(path)
        if self.everything or norm in self.exact:
            return True
        parts = norm.split(".")
        return any(".".join(parts[:i]) in self.subtrees for i in range(1, len(parts) + 1))


@dataclass(frozen=True)
class ResourceRules:
    force_new: PathSet = field(default_factory=PathSet)
    not_updatable: PathSet = field(default_factory=PathSet)
    recreates_nodes: PathSet = field(default_factory=PathSet)
    tpu_not_updatable: PathSet = field(default_factory=PathSet)
    sets: frozenset[str] = frozenset()  # TypeSet attributes: order is no change
    zones: frozenset[str] = frozenset()  # sets of zones: adding adds nodes, removing deletes them


@dataclass(frozen=True)
class ReplaceRules:
    identity: PathSet
    resources: dict[str, ResourceRules]
    tpu_machine_prefixes: tuple[str, ...]

    def effect(self, rtype: str, path: str, *, tpu: bool = False) -> Effect | None:
        """What changing ``path`` of a ``rtype`` resource does (``tpu``: a TPU slice pool);
        None is a plain in-place update."""
        rules = self.resources.get(rtype, ResourceRules())
        if rules.force_new.matches(path):
            return "force_new"
        if self.identity.matches(path):
            return "identity"
        if rules.not_updatable.matches(path) or (tpu and rules.tpu_not_updatable.matches(path)):
            return "not_updatable"
        if rules.recreates_nodes.matches(path):
            return "recreates_nodes"
        return None

    def is_known(self, rtype: str) -> bool:
        return rtype in self.resources

    def sets(self, rtype: str) -> frozenset[str]:
        return self.resources.get(rtype, ResourceRules()).sets

    def zone_effect(self, rtype: str, path: str, before: Any, after: Any) -> Effect | None:
        """For a set of zones updated in place: nodes added (only zones added) or removed."""
        if normalize(path) not in self.resources.get(rtype, ResourceRules()).zones:
            return None
        old = set(before) if isinstance(before, list) else set()
        new = set(after) if isinstance(after, list) else set()
        if not old or not new:  # unset means "the cluster's zones": not a plain add or remove
            return None
        return "removes_nodes" if old - new else "adds_nodes"


def _paths(raw: Any) -> list[str]:
    return [str(p) for p in (raw or [])]


@cache
def load_rules() -> ReplaceRules:
    text = resources.files(__package__ or "gke_accel.review").joinpath("force_new.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    per_type = {
        rtype: ResourceRules(
            PathSet.of(_paths(body.get("force_new"))),
            PathSet.of(_paths(body.get("not_updatable"))),
            PathSet.of(_paths(body.get("recreates_nodes"))),
            PathSet.of(_paths(body.get("tpu_not_updatable"))),
            frozenset(_paths(body.get("sets"))),
            frozenset(_paths(body.get("zones"))),
        )
        for rtype, body in data["resources"].items()
    }
    return ReplaceRules(PathSet.of(_paths(data["identity"])), per_type, tuple(_paths(data.get("tpu_machine_prefixes"))))
