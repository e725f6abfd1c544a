"""What verify reads from the cluster, as plain API dicts (camelCase field names, as the API server
stores them), so the comparison is pure and testable without a server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Obj = dict[str, Any]


@dataclass(frozen=True)
class ClusterState:
    nodes: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)  # pods of the driver installer's and controllers' namespaces
    objects: dict[tuple[str, str, str], Obj] = field(default_factory=dict)  # (kind, namespace, name) -> object
    namespaces: set[str] = field(default_factory=set)
    unserved: frozenset[str] = frozenset()  # kinds the server does not serve (CRDs not installed)

    def get(self, kind: str, namespace: str, name: str) -> Obj | None:
        return self.objects.get((kind, namespace, name))


Status = Literal["ok", "info", "warn", "FAIL"]


@dataclass(frozen=True)
class CheckRow:
    area: str
    subject: str
    status: Status
    detail: str


@dataclass(frozen=True)
class VerifyReport:
    environment: str
    rows: tuple[CheckRow, ...]

    @property
    def ok(self) -> bool:
        return all(r.status != "FAIL" for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "environment": self.environment,
            "ok": self.ok,
            "checks": [
                {"area": r.area, "subject": r.subject, "status": r.status, "detail": r.detail} for r in self.rows
            ],
        }
