"""What shapes admission in an environment, as objects: the review replays the queues (``replay.py``)
only when these differ between base and head.

``admission_objects(plan, stack)`` returns, keyed ``Kind namespace/name``:
- the Kueue objects (``model.environment.objects.cluster_objects(plan).queues``: ResourceFlavors,
  ClusterQueues, Cohorts, LocalQueues, WorkloadPriorityClasses): teams, nominal quotas, borrowing and
  lending limits, cohorts, preemption, flavor order;
- the pod PriorityClasses (value, preemption policy, default), the teams' ResourceQuotas (admission
  where an environment has no queues), the priority fence (which classes a
  team may use) and the ComputeClasses of the capacity ladders;
- the accelerator nodes the twin creates for each pool at its largest (labels, taints, allocatable, how
  many): pools that feed the flavors, their size and shape;
- Kueue's own Configuration, from the stack's ``helm_release`` of chart ``kueue`` (fair sharing,
  preemption strategies, wait-for-pods-ready).

Only what the API server or a controller reads counts: metadata other than names, and a description,
do not. An alert, a budget, a label on the cluster change none of these, so they replay nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]
ACCELERATOR_RESOURCES = ("google.com/tpu", "nvidia.com/gpu")
_IGNORED_TOP = ("status", "description")  # PriorityClass description: for people


@dataclass(frozen=True)
class AdmissionChange:
    key: str  # "ClusterQueue /research", "Nodes of pool /v5e-shared", "Kueue Configuration"
    action: str  # added | removed | changed


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata", {})
    return f"{obj.get('kind', '?')} {meta.get('namespace', '')}/{meta.get('name', '')}"


def normalized(obj: Mapping[str, Any]) -> Obj:
    """The object as admission sees it: names kept, other metadata and descriptions dropped."""
    meta = obj.get("metadata", {})
    out: Obj = {k: v for k, v in obj.items() if k not in ("metadata", *_IGNORED_TOP)}
    out["metadata"] = {k: meta[k] for k in ("name", "namespace") if k in meta}
    return out


def node_groups(nodes: list[Obj]) -> dict[str, Obj]:
    """Accelerator nodes grouped by pool: one entry per pool with its node shape and count."""
    groups: dict[str, Obj] = {}
    for node in nodes:
        allocatable = node.get("status", {}).get("allocatable", {})
        if not any(r in allocatable for r in ACCELERATOR_RESOURCES):
            continue
        labels = {k: v for k, v in node["metadata"].get("labels", {}).items()
                  if k not in ("kubernetes.io/hostname", "topology.kubernetes.io/zone")}  # fmt: skip
        pool = str(labels.get("cloud.google.com/gke-nodepool", node["metadata"]["name"]))
        entry = groups.setdefault(
            f"Nodes of pool /{pool}",
            {"labels": labels, "taints": node.get("spec", {}).get("taints", []), "allocatable": allocatable,
             "zones": [], "count": 0},
        )  # fmt: skip
        entry["count"] += 1
        zone = node["metadata"].get("labels", {}).get("topology.kubernetes.io/zone")
        if zone and zone not in entry["zones"]:
            entry["zones"].append(zone)
    return groups


def kueue_configuration(stack: Mapping[str, Any] | None) -> Obj | None:
    """Kueue's Configuration as the stack's ``kueue`` Helm release passes it (None: no Kueue)."""
    import yaml

    for release in ((stack or {}).get("resource", {}).get("helm_release", {}) or {}).values():
        if release.get("chart") != "kueue":
            continue
        for text in release.get("values", []) or []:
            try:
                values = yaml.safe_load(text) or {}
            except yaml.YAMLError:
                continue
            config = (values.get("managerConfig") or {}).get("controllerManagerConfigYaml")
            if config:
                loaded: Obj = yaml.safe_load(config) or {}
                return loaded
        return {"chart": release.get("chart"), "version": release.get("version")}
    return None


def admission_objects(plan: Any, stack: Mapping[str, Any] | None = None) -> dict[str, Obj]:
    """Everything of ``plan`` (an EnvironmentPlan, loaded with the head's code) that admission reads."""
    from gke_accel.model.environment.objects import cluster_objects
    from gke_accel.twin.environment import all_nodes

    objects = cluster_objects(plan)
    out: dict[str, Obj] = {}
    shaping = [*objects.queues, *objects.fence, *objects.compute_classes]
    shaping += [m for m in objects.platform if m.get("kind") in ("PriorityClass", "ResourceQuota")]
    for manifest in shaping:
        out[_key(manifest)] = normalized(manifest)
    out.update(node_groups(all_nodes(plan)))
    config = kueue_configuration(stack)
    if config is not None:
        out["Kueue Configuration"] = config
    return out


def admission_changes(base: Mapping[str, Obj], head: Mapping[str, Obj]) -> list[AdmissionChange]:
    """Objects added, removed or changed between two ``admission_objects`` results, sorted by key."""
    out = []
    for key in sorted(set(base) | set(head)):
        if key not in base:
            out.append(AdmissionChange(key, "added"))
        elif key not in head:
            out.append(AdmissionChange(key, "removed"))
        elif base[key] != head[key]:
            out.append(AdmissionChange(key, "changed"))
    return out
