"""What verify reads from the cluster, as plain API dicts (camelCase field names, as the API server
stores them), so the comparison is pure and testable without a server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]


@dataclass(frozen=True)
class ClusterState:
    nodes: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)  # driver installer pods (kube-system)
    objects: dict[tuple[str, str, str], Obj] = field(default_factory=dict)  # (kind, namespace, name) -> object
    namespaces: set[str] = field(default_factory=set)
    kueue: bool | None = None  # LocalQueue API served; None = not asked

    def get(self, kind: str, namespace: str, name: str) -> Obj | None:
        return self.objects.get((kind, namespace, name))
