"""Pinned Kueue and JobSet releases and the Kueue configuration the stack installs them with.

The charts are the projects' official OCI charts; the versions are the ones the e2e tier tests
(their CRDs and controllers come from the Go modules of the same tags).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from gke_accel.model.cluster.controllers import ControllerPlacement
from gke_accel.model.pools.node_pool import NodePoolPlan
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


KUEUE = Release("kueue", KUEUE_NAMESPACE, "oci://registry.k8s.io/kueue/charts", "kueue", "0.19.2", "sigs.k8s.io/kueue")
JOBSET = Release(
    "jobset", JOBSET_NAMESPACE, "oci://registry.k8s.io/jobset/charts", "jobset", "0.12.0", "sigs.k8s.io/jobset"
)


def controller_namespaces() -> dict[str, str]:
    """Namespace -> which queue controller runs there (no team may own these namespaces)."""
    return {
        KUEUE.namespace: f"the Kueue controller ({KUEUE.chart} {KUEUE.version}) runs there",
        JOBSET.namespace: f"the JobSet controller ({JOBSET.chart} {JOBSET.version}) runs there",
    }


def jobset_reasons(pools: Sequence[NodePoolPlan], queues: QueuePlan | None) -> tuple[str, ...]:
    """Why the environment installs the JobSet controller; empty when it does not.

    A multi-host TPU slice runs only as a JobSet (one pod per VM, started and restarted together;
    ``workload new`` writes nothing else for it), and so does a job over several nodes of a
    compact-placement GPU pool. Kueue's ``jobset.x-k8s.io/jobset`` integration needs the CRD too."""
    reasons: list[str] = []
    if queues is not None:
        reasons.append("queues: Kueue's jobset.x-k8s.io/jobset integration")
    for pool in pools:
        placement = pool.placement
        if pool.kind == "tpu" and placement is not None and placement.tpu_topology:
            vms = pool.node_bounds()[1]
            reasons.append(f"pool {pool.name}: a multi-host {pool.tpu_topology} slice ({vms} VMs)")
        elif pool.kind == "gpu" and placement is not None and placement.compact and pool.node_bounds()[1] > 1:
            reasons.append(f"pool {pool.name}: compact placement for jobs over up to {pool.node_bounds()[1]} nodes")
    return tuple(reasons)


def placement_values(placement: ControllerPlacement) -> dict[str, Any]:
    """nodeSelector and tolerations in the charts' spelling (both charts take them as given)."""
    spec = placement.pod_spec()
    return {"nodeSelector": spec["nodeSelector"], "tolerations": spec["tolerations"]}


# Kueue's own tuning in the configuration its chart ships (charts/kueue/values.yaml at the pinned tag,
# managerConfig.controllerManagerConfigYaml): the chart's value is replaced whole by ours, so without
# these Kueue would run at one worker per controller (0.19.2 defaults the client to 300/s burst 500 itself,
# 0.17 to client-go's 20/s burst 30; the chart ships the same 300/500 and 10/5/5 workers). At 20/s
# its writes waited up to 0.33 s each when many jobs moved at once (the simulator's hourly steps: 266
# throttled writes in 9 settles), and once a preemption was written before the admission it undid:
# the next workload of the ClusterQueue waited 30 s for that eviction, blocking the queue.
KUEUE_SHIPPED_TUNING: dict[str, Any] = {
    "controller": {
        "groupKindConcurrency": {
            "Job.batch": 5,
            "Pod": 5,
            "Workload.kueue.x-k8s.io": 10,
            "LocalQueue.kueue.x-k8s.io": 5,
            "ClusterQueue.kueue.x-k8s.io": 5,
            "ResourceFlavor.kueue.x-k8s.io": 1,
        }
    },
    "clientConnection": {"qps": 300, "burst": 500},
}


# waitForPodsReady's requeuing (Kueue v0.17.0 apis/config/v1beta2, WaitForPodsReady/RequeuingStrategy; that
# API has no ``enable`` field: the block's presence turns it on). Backoff base 60 s doubling up to 3600 s,
# Kueue's own defaults (DefaultRequeuingBackoffBaseSeconds/MaxSeconds), counted from the eviction, with no
# retry limit (a workload is never deactivated for waiting on capacity); blockAdmission off, so one
# workload waiting for nodes does not stop the queue from admitting others.
REQUEUE_BACKOFF_BASE_SECONDS, REQUEUE_BACKOFF_MAX_SECONDS = 60, 3600


def wait_for_pods_ready(timeout_seconds: int) -> dict[str, Any]:
    """Kueue's ``waitForPodsReady``: evict and requeue an admitted workload whose pods are not all Ready
    within ``timeout_seconds`` (its quota freed meanwhile); the same timeout once running, when a pod is
    lost and its replacement waits for a node (``recoveryTimeout``)."""
    timeout = f"{timeout_seconds}s"
    return {
        "timeout": timeout,
        "blockAdmission": False,
        "recoveryTimeout": timeout,
        "requeuingStrategy": {
            "timestamp": "Eviction",
            "backoffBaseSeconds": REQUEUE_BACKOFF_BASE_SECONDS,
            "backoffMaxSeconds": REQUEUE_BACKOFF_MAX_SECONDS,
        },
    }


def kueue_configuration(plan: QueuePlan) -> dict[str, Any]:
    """Kueue's Configuration: the chart's own (ports, leader election, the tuning above), with every job
    in a team namespace queued (none bypasses the team's share, so the ResourceQuota never sees more
    than Kueue admitted), the integrations above and ``waitForPodsReady``."""
    namespaces = sorted({t.namespace for t in plan.teams})
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        **copy.deepcopy(KUEUE_SHIPPED_TUNING),
        "manageJobsWithoutQueueName": True,
        "managedJobsNamespaceSelector": {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]
        },
        "integrations": {"frameworks": list(INTEGRATIONS)},
        "waitForPodsReady": wait_for_pods_ready(plan.pods_ready_timeout_seconds),
        # a fleet manager's MultiKueue settings (model/fleet/plan.py)
        **({"multiKueue": copy.deepcopy(dict(plan.multikueue))} if plan.multikueue is not None else {}),
    }


class _Block(str):
    """A string dumped as a YAML literal block (readable in the synthesized stack and in plans)."""


def _block(dumper: yaml.SafeDumper, text: _Block) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(text), style="|")


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Block, _block)


def kueue_values(plan: QueuePlan, placement: ControllerPlacement) -> str:
    """Helm values for the Kueue chart (a YAML document): the configuration above, the controller on
    the system pool (chart keys ``controllerManager.nodeSelector`` / ``.tolerations``)."""
    config = _Block(yaml.safe_dump(kueue_configuration(plan), sort_keys=False))
    manager: dict[str, Any] = placement_values(placement)
    if plan.feature_gates:  # the chart's controllerManager.featureGates: [{name, enabled}] -> --feature-gates
        manager["featureGates"] = [{"name": gate, "enabled": True} for gate in plan.feature_gates]
    values = {
        "controllerManager": manager,
        "managerConfig": {"controllerManagerConfigYaml": config},
    }
    return yaml.dump(values, Dumper=_Dumper, sort_keys=False)


def jobset_values(placement: ControllerPlacement) -> str:
    """Helm values for the JobSet chart: the controller on the system pool (``controller.nodeSelector`` /
    ``.tolerations``)."""
    return yaml.safe_dump({"controller": placement_values(placement)}, sort_keys=False)
