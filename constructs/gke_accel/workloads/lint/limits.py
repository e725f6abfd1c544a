"""The ``limit-range`` rule: a team namespace's LimitRange gives a container without a cpu or memory
limit its ``default`` limit; when the container's own request is above it, the API server refuses the
pod (Kubernetes "Limit Ranges": "must be less than or equal to cpu limit"), so a Job or Deployment makes
no pod at all (real-engines W4c)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Obj, as_dict, containers, init_containers
from gke_accel.workloads.quantity import parse_quantity


def default_limits(manifests: list[dict[str, Any]]) -> dict[str, dict[str, Decimal]]:
    """Namespace -> the Container default limits of its LimitRanges (cpu, memory, ...)."""
    out: dict[str, dict[str, Decimal]] = {}
    for m in manifests:
        if m.get("kind") != "LimitRange":
            continue
        ns = str((m.get("metadata") or {}).get("namespace"))
        for item in (m.get("spec") or {}).get("limits") or []:
            if item.get("type") == "Container":
                for name, value in (item.get("default") or {}).items():
                    q = parse_quantity(value)
                    if q is not None:
                        out.setdefault(ns, {})[str(name)] = q
    return out


def limit_range_findings(pod: Obj, path: str, defaults: dict[str, Decimal]) -> list[Finding]:
    out: list[Finding] = []
    for where, items in (("containers", containers(pod)), ("initContainers", init_containers(pod))):
        for i, c in enumerate(items):
            res = as_dict(c.get("resources"))
            requests, limits = as_dict(res.get("requests")), as_dict(res.get("limits"))
            for name, default in sorted(defaults.items()):
                asked = parse_quantity(requests.get(name)) if name in requests else None
                if name in limits or asked is None or asked <= default:
                    continue
                out.append(
                    Finding(
                        "limit-range",
                        "error",
                        f"{path}.{where}[{i}].resources.requests.{name}",
                        f"{requests[name]} is above the namespace LimitRange's default {name} limit "
                        f"({default.normalize():f}), which a container without a {name} limit gets: the API "
                        "server refuses the pod",
                        f"set resources.limits.{name} at or above the request",
                    )
                )
    return out
