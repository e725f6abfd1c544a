"""What the Kueue 0.19.2 CRDs default on the way in, so a test can compare what we declare with what
the API server stored, field for field. Written out from the ``default:`` fields of the v1beta2
schemas in sigs.k8s.io/kueue@v0.19.2 ``config/components/crd/bases/kueue.x-k8s.io_{clusterqueues,
localqueues,cohorts}.yaml`` (ResourceFlavor, Topology and WorkloadPriorityClass have none; every
``default:`` of these v1beta2 schemas is the same as in 0.17.0)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

SPEC_DEFAULTS: dict[str, dict[str, Any]] = {
    "ClusterQueue": {
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
        "preemption": {
            "borrowWithinCohort": {"policy": "Never"},
            "reclaimWithinCohort": "Never",
            "withinClusterQueue": "Never",
        },
        "queueingStrategy": "BestEffortFIFO",
        "stopPolicy": "None",
    },
    "LocalQueue": {"stopPolicy": "None"},
}
FAIR_SHARING_WEIGHT = 1  # spec.fairSharing.weight, where spec.fairSharing is set (ClusterQueue, LocalQueue)


def _merge(defaults: Mapping[str, Any], declared: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(defaults))
    for key, value in declared.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def stored_spec(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The ``spec`` the server stores for ``manifest`` (a Kueue object as we write it)."""
    spec = _merge(SPEC_DEFAULTS.get(manifest["kind"], {}), manifest.get("spec", {}))
    if "fairSharing" in spec:
        spec["fairSharing"] = {"weight": FAIR_SHARING_WEIGHT, **spec["fairSharing"]}
    return spec
