"""Queue policies of a run. ``cohort``: the ClusterQueues as the stack makes them (borrowing and lending
in the cohort, docs/queues.md). ``static``: each team fixed to its nominal share, the "before" of the
promise: every accelerator resource of every ClusterQueue gets ``borrowingLimit: 0`` (Kueue v1beta2
``ResourceQuota.borrowingLimit``: "the maximum amount of quota for the [flavor, resource] combination
that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same
cohort"; 0 = none). When no queue may borrow, nothing is lent either, so no lendingLimit is needed; the
queues stay in their cohort so the preemption settings within a queue are unchanged."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

POLICIES = ("cohort", "static")
ACCELERATORS = ("google.com/tpu", "nvidia.com/gpu")
Obj = dict[str, Any]


def static_cluster_queue(cq: Mapping[str, Any]) -> Obj:
    """The ClusterQueue with no borrowing of accelerators (cpu and memory are already ``borrowingLimit: 0``)."""
    out: Obj = copy.deepcopy(dict(cq))
    for group in out["spec"].get("resourceGroups", []):
        for flavor in group.get("flavors", []):
            for res in flavor.get("resources", []):
                if res["name"] in ACCELERATORS:
                    res["borrowingLimit"] = 0
    return out


def nominal_quotas(cqs: Iterable[Mapping[str, Any]], team_of: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """team -> flavor -> nominal accelerators, from the ClusterQueues (``team_of``: namespace -> team)."""
    out: dict[str, dict[str, int]] = {}
    for cq in cqs:
        ns = cq["spec"].get("namespaceSelector", {}).get("matchLabels", {}).get("kubernetes.io/metadata.name", "")
        team = team_of.get(ns, cq["metadata"]["name"])
        quotas = out.setdefault(team, {})
        for group in cq["spec"].get("resourceGroups", []):
            for flavor in group.get("flavors", []):
                for res in flavor.get("resources", []):
                    if res["name"] in ACCELERATORS:
                        quotas[flavor["name"]] = quotas.get(flavor["name"], 0) + int(res["nominalQuota"])
    return out


def flavor_capacity(
    flavors: Iterable[Mapping[str, Any]], nodes: Iterable[Mapping[str, Any]]
) -> tuple[dict[str, int], dict[str, str]]:
    """(flavor -> accelerators of the nodes its nodeLabels select, flavor -> resource name)."""
    capacity: dict[str, int] = {}
    resource: dict[str, str] = {}
    node_list = list(nodes)
    for f in flavors:
        labels = f.get("spec", {}).get("nodeLabels", {})
        if not labels:
            continue
        name = f["metadata"]["name"]
        for node in node_list:
            have = node["metadata"].get("labels", {})
            if all(have.get(k) == v for k, v in labels.items()):
                for res in ACCELERATORS:
                    qty = node.get("status", {}).get("allocatable", {}).get(res)
                    if qty:
                        capacity[name] = capacity.get(name, 0) + int(qty)
                        resource[name] = res
    return capacity, resource


def beyond_nominal(jobs: Iterable[tuple[str, str, int, str]], nominal: Mapping[str, Mapping[str, int]],
                   resource_of: Mapping[str, str]) -> list[str]:  # fmt: skip
    """Of ``jobs`` (name, team, chips, resource), those that need more than any one nominal quota of their
    team for that resource: under ``static`` Kueue can never admit them. As "name (chips > most)"."""
    out = []
    for name, team, chips, resource in jobs:
        most = max((n for f, n in nominal.get(team, {}).items() if resource_of.get(f) == resource), default=0)
        if chips > most:
            out.append(f"{name} ({chips} > {most})")
    return out
