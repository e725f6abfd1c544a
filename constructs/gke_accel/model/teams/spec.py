"""Config shapes of a team (``teams:`` in ``config/<env>.yaml``) and the priority classes its
workloads choose from. Rules live in ``model/platform/rules.py``; the plan in ``model/teams/plan.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PodSecurityLevel = Literal["restricted", "baseline"]
IngressPreset = Literal["google-lb"]


@dataclass(frozen=True)
class IngressFromSpec:
    """Who besides the team's own pods (and managed Prometheus) may connect to its pods: rendered as a
    second NetworkPolicy next to the team's default deny (model/teams/ingress.py).

    ``presets``: ``google-lb``, Google Cloud load balancers' health checks and GFE proxies
    (35.191.0.0/16, 130.211.0.0/22). ``proxy_only_subnets``: the region's proxy-only subnet of
    Envoy-based load balancers (a CIDR you created, e.g. 10.129.0.0/23). ``namespaces``: e.g. a Gateway's
    namespace. ``teams``: other teams of this environment, by name."""

    presets: tuple[IngressPreset, ...] = ()
    proxy_only_subnets: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()


@dataclass(frozen=True)
class TeamSpec:
    """A team: its namespace, quotas, identity and access.

    ``accelerators`` maps a GPU model (``l4``, ``h100``, ...) or TPU generation (``v5e``, ...) to the
    GPUs or TPU chips the team may request. Kubernetes enforces the sum per resource
    (``requests.nvidia.com/gpu``, ``requests.google.com/tpu``); the split per model is checked
    against pool capacity at synth time.
    """

    name: str
    google_group: str
    accelerators: dict[str, int] = field(default_factory=dict)
    # cores its pods may request at once; unset: the VMs its accelerator quota fills, plus 64 (model/teams/compute.py)
    cpu: int | None = None
    # GiB its pods may request at once; unset: the VMs its accelerator quota fills, plus 256
    memory_gib: int | None = None
    pods: int = 200
    priority_classes: tuple[str, ...] = ()  # allowed classes by name; empty = all defined classes
    namespace: str | None = None  # default: the team name
    # Pod Security admission level enforced in the namespace; restricted: no privileged, host or root pods
    pod_security: PodSecurityLevel = "restricted"
    # Ingress allowed besides the team's own namespace and managed Prometheus (serving: load balancers, gateways)
    ingress_from: IngressFromSpec = field(default_factory=IngressFromSpec)


@dataclass(frozen=True)
class PriorityClassSpec:
    name: str
    value: int


@dataclass(frozen=True)
class PriorityClassesSpec:
    """Three classes: inference preempts training at peaks; training is the default; batch never
    preempts anyone. Names and values are configurable; values must keep that order."""

    inference: PriorityClassSpec = field(default_factory=lambda: PriorityClassSpec("inference", 100000))
    training: PriorityClassSpec = field(default_factory=lambda: PriorityClassSpec("training", 10000))
    batch: PriorityClassSpec = field(default_factory=lambda: PriorityClassSpec("batch", 1000))
