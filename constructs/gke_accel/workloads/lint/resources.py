"""Rules on the resources a container asks for: names GKE nodes advertise, and accelerator
requests equal to their limits."""

from __future__ import annotations

import difflib

from gke_accel.workloads.lint._model import GPU_RESOURCE, TPU_RESOURCE
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Obj, as_dict, containers, init_containers
from gke_accel.workloads.quantity import quantity_problem

ACCELERATORS = (GPU_RESOURCE, TPU_RESOURCE)
CORE = ("cpu", "memory", "ephemeral-storage")


def _suggest(name: str) -> str | None:
    low = name.lower()
    if "tpu" in low:
        return TPU_RESOURCE
    if "gpu" in low or "nvidia" in low:
        return GPU_RESOURCE
    close = difflib.get_close_matches(low, [*CORE, *ACCELERATORS], n=1, cutoff=0.6)
    return close[0] if close else None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _all_containers(pod: Obj, path: str) -> list[tuple[str, Obj]]:
    out = [(f"{path}.containers[{i}]", c) for i, c in enumerate(containers(pod))]
    return out + [(f"{path}.initContainers[{i}]", c) for i, c in enumerate(init_containers(pod))]


def resource_findings(pod: Obj, path: str) -> list[Finding]:
    findings = []
    for where, c in _all_containers(pod, path):
        res = as_dict(c.get("resources"))
        parts = {p: as_dict(res.get(p)) for p in ("requests", "limits")}
        for part, values in parts.items():
            for key, value in values.items():
                problem = quantity_problem(str(key), value)
                if problem is not None:
                    message = f"{_shown(value)}: {problem} (the API server refuses the pod)"
                    fix = "a quantity such as 2, 500m or 16Gi; a whole number for accelerators"
                    findings.append(Finding("quantity", "error", f"{where}.resources.{part}.{key}", message, fix))
            for name in values:
                name = str(name)
                if name in CORE or name in ACCELERATORS or name.startswith("hugepages-"):
                    continue
                suggestion = _suggest(name)
                accel_like = suggestion in ACCELERATORS or "/" not in name
                if accel_like:
                    hint = f"use {suggestion}" if suggestion else f"use one of {', '.join((*CORE, *ACCELERATORS))}"
                    findings.append(
                        Finding(
                            "resource-name",
                            "error",
                            f"{where}.resources.{part}.{name}",
                            f"no GKE node advertises {name!r}: the pod would wait forever",
                            hint,
                        )
                    )
                else:
                    findings.append(
                        Finding(
                            "resource-name",
                            "warning",
                            f"{where}.resources.{part}.{name}",
                            f"{name!r} is not a resource the environment's pools provide",
                        )
                    )
        for name in ACCELERATORS:
            req, lim = parts["requests"].get(name), parts["limits"].get(name)
            if req is not None and lim is None:
                findings.append(
                    Finding(
                        "extended-limits",
                        "error",
                        f"{where}.resources.limits",
                        f"{name} is requested ({req}) without a limit: the API server rejects the pod",
                        f"set limits.{name}: {req} (or only the limit)",
                    )
                )
            elif req is not None and str(req) != str(lim):
                findings.append(
                    Finding(
                        "extended-limits",
                        "error",
                        f"{where}.resources",
                        f"{name} request {req} differs from limit {lim}: accelerators cannot be overcommitted",
                        "make the request equal to the limit",
                    )
                )
    return findings
