"""One environment's tenancy and queues on a local control plane with the real Kueue: what the e2e files
that judge Kueue's admission against hand-written nodes (test_split_gpus, test_lint_agrees) start from."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from gke_accel.model import EnvironmentPlan
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.queues.install import kueue_configuration
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.model.queues.plan import QueuePlan
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.kueue import KueueController, install_crds
from gke_accel.twin.webhooks import WebhookCA
from gke_nodes import load_fixtures
from require import build_output, require_or_skip


def fixture_node_copies(counts: dict[str, int]) -> list[dict[str, Any]]:
    """``count`` copies of each named hand-written GKE fixture node (tests/fixtures/gke-nodes), named apart,
    with the labels a kubelet adds (hostname, os, arch)."""
    fixtures = {f.name: f for f in load_fixtures()}
    out = []
    for name, count in counts.items():
        for i in range(count):
            node = fixtures[name].node
            meta = dict(node["metadata"])
            meta["name"] = f"{meta['name'][:-2]}-{i}"
            meta["labels"] = {**meta["labels"], "kubernetes.io/hostname": meta["name"], "kubernetes.io/os": "linux",
                              "kubernetes.io/arch": "amd64"}  # fmt: skip
            out.append({**node, "metadata": meta})
    return out


def apply_env(cluster: LocalCluster, env: EnvironmentPlan, nodes: list[dict[str, Any]]) -> QueuePlan:
    """Kueue's and JobSet's CRDs, ``env``'s namespaces, PriorityClasses, ResourceQuotas, ServiceAccounts,
    LimitRanges and Kueue objects applied and ``nodes`` created; returns the queue plan (for Kueue's
    configuration)."""
    try:
        install_crds(cluster)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))
    plan = queue_plan_of(env)
    assert plan is not None, f"{env.name} has no queues"
    platform = platform_manifests(env)
    cluster.apply([m for m in platform if m["kind"] in ("Namespace", "PriorityClass")])
    cluster.apply([m for m in platform if m["kind"] in ("ResourceQuota", "ServiceAccount", "LimitRange")])
    cluster.apply(queue_manifests(plan, env.spec.platform.priority_classes))
    cluster.create_nodes(nodes)
    return plan


def start_env_kueue(cluster: LocalCluster, env: EnvironmentPlan, nodes: list[dict[str, Any]],
                    state: Path) -> KueueController:  # fmt: skip
    """``apply_env``, then Kueue started with the stack's configuration (the caller stops it)."""
    plan = apply_env(cluster, env, nodes)
    try:
        return KueueController.start(cluster, kueue_configuration(plan), state / "kueue", WebhookCA(state / "ca"))
    except subprocess.CalledProcessError as exc:
        require_or_skip("the Kueue controller could not be built (tools/kueue/build.sh)", output=build_output(exc))
        raise
