"""The MultiKueue objects of a fleet manager, as plain manifests (``kueue.x-k8s.io/v1beta2``, Kueue v0.19.2
apis/kueue/v1beta2/multikueue_types.go): the AdmissionCheck every manager ClusterQueue carries, the
MultiKueueConfig listing the workers in dispatch order, and one MultiKueueCluster per worker.

A MultiKueueCluster reaches its worker through a ClusterProfile (``access: cluster-profile``: GKE fleet
ClusterProfile sync writes them into kueue-system, Kueue asks a plugin for a short-lived token under
Workload Identity: no secret anywhere) or through a kubeconfig Secret ``<worker>-kubeconfig`` in
kueue-system (``access: kubeconfig-secret``) that the operator creates: never generated here, so no
credential is ever in the synthesized stack, its state or git.
"""

from __future__ import annotations

from typing import Any

from gke_accel.model.fleet.plan import MULTIKUEUE_CONTROLLER, FleetPlan, WorkerView

API = "kueue.x-k8s.io/v1beta2"
MANAGED_BY = {"app.kubernetes.io/managed-by": "gke-accel"}
Manifest = dict[str, Any]


def kubeconfig_secret(worker: str) -> str:
    """The Secret (key ``kubeconfig``, Kueue's MultiKueueConfigSecretKey) a kubeconfig-secret fleet reads."""
    return f"{worker}-kubeconfig"


def cluster_profile(worker: WorkerView) -> str:
    """The ClusterProfile GKE's fleet sync writes for the worker: named after its fleet membership,
    which is the cluster's name when the cluster is registered with ``--enable-fleet``."""
    return worker.cluster


def _meta(name: str) -> dict[str, Any]:
    return {"name": name, "labels": dict(MANAGED_BY)}


def cluster_source(plan: FleetPlan, worker: WorkerView, access: str | None = None) -> dict[str, Any]:
    """``spec.clusterSource`` (exactly one of kubeConfig and clusterProfileRef); ``access`` overrides the
    fleet's (the local twin reaches its workers through kubeconfig Secrets)."""
    if (access or plan.spec.access) == "kubeconfig-secret":
        return {"kubeConfig": {"location": kubeconfig_secret(worker.name), "locationType": "Secret"}}
    return {"clusterProfileRef": {"name": cluster_profile(worker)}}


def fleet_manifests(plan: FleetPlan, access: str | None = None) -> list[Manifest]:
    """AdmissionCheck, MultiKueueConfig, MultiKueueClusters: the manager's objects beyond its queues."""
    clusters = [
        {
            "apiVersion": API,
            "kind": "MultiKueueCluster",
            "metadata": _meta(w.name),
            "spec": {"clusterSource": cluster_source(plan, w, access)},
        }
        for w in plan.workers
    ]
    return [
        {
            "apiVersion": API,
            "kind": "AdmissionCheck",
            "metadata": _meta(plan.check),
            "spec": {
                "controllerName": MULTIKUEUE_CONTROLLER,
                "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": plan.check},
            },
        },
        {
            "apiVersion": API,
            "kind": "MultiKueueConfig",
            "metadata": _meta(plan.check),
            "spec": {"clusters": list(plan.order)},
        },
        *clusters,
    ]
