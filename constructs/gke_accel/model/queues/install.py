"""Pinned Kueue and JobSet releases and the Kueue configuration the stack installs them with.

The charts are the projects' official OCI charts; the versions are the ones the e2e tier tests
(their CRDs and controllers come from the Go modules of the same tags).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from gke_accel.model.cluster.controllers import ControllerPlacement
from gke_accel.model.queues.plan import QueuePlan

KUEUE_NAMESPACE = "kueue-system"
JOBSET_NAMESPACE = "jobset-system"
# Workload kinds Kueue queues. Deployments/StatefulSets/Pods too, so inference goes through Kueue
# (otherwise kube-scheduler preemption could evict admitted training while Kueue still counts it).
INTEGRATIONS = ("batch/job", "jobset.x-k8s.io/jobset", "pod", "deployment", "statefulset")


@dataclass(frozen=True)
class Release:
    name: str
    namespace: str
    repository: str  # an OCI registry path
    chart: str
    version: str
    go_module: str  # where the e2e tier gets the same release's CRDs and controller


KUEUE = Release("kueue", KUEUE_NAMESPACE, "oci://registry.k8s.io/kueue/charts", "kueue", "0.17.0", "sigs.k8s.io/kueue")
JOBSET = Release(
    "jobset", JOBSET_NAMESPACE, "oci://registry.k8s.io/jobset/charts", "jobset", "0.11.1", "sigs.k8s.io/jobset"
)


def kueue_configuration(plan: QueuePlan) -> dict[str, Any]:
    """Kueue's Configuration: every job in a team namespace is queued (none bypasses the team's
    share, so the ResourceQuota never sees more than Kueue admitted), the integrations above."""
    namespaces = sorted({t.namespace for t in plan.teams})
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "manageJobsWithoutQueueName": True,
        "managedJobsNamespaceSelector": {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]
        },
        "integrations": {"frameworks": list(INTEGRATIONS)},
    }


class _Block(str):
    """A string dumped as a YAML literal block (readable in the synthesized stack and in plans)."""


def _block(dumper: yaml.SafeDumper, text: _Block) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(text), style="|")


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Block, _block)


def _placement(placement: ControllerPlacement) -> dict[str, Any]:
    """The chart values (``nodeSelector``, ``tolerations``) that put a controller on the system pool:
    every other pool is tainted, so without them the controller never schedules."""
    spec = placement.pod_spec()
    return {"nodeSelector": spec["nodeSelector"], "tolerations": spec["tolerations"]}


def kueue_values(plan: QueuePlan, placement: ControllerPlacement) -> str:
    """Helm values for the Kueue chart (a YAML document): its Configuration, and the controller on the
    system pool (chart 0.17.0: ``controllerManager.nodeSelector`` / ``.tolerations``)."""
    config = _Block(yaml.safe_dump(kueue_configuration(plan), sort_keys=False))
    values = {"controllerManager": _placement(placement), "managerConfig": {"controllerManagerConfigYaml": config}}
    return yaml.dump(values, Dumper=_Dumper, sort_keys=False)


def jobset_values(placement: ControllerPlacement) -> str:
    """Helm values for the JobSet chart: the controller on the system pool (chart 0.11.1:
    ``controller.nodeSelector`` / ``.tolerations``)."""
    return yaml.safe_dump({"controller": _placement(placement)}, sort_keys=False)
