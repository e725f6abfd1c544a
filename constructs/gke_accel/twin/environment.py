"""One shipped environment (config/<env>.yaml) brought up on a control plane of its own, as the stack installs it.

    with EnvironmentRun.start(env_name, state_dir) as run: run.submit(objects); run.running(...)

- kube-apiserver with GKE's pod admission (localcluster.ADMISSION_PLUGINS: ExtendedResourceToleration),
  kube-controller-manager (Job, ReplicaSet, Deployment, quota, ... controllers), kube-scheduler and kwok;
- kwok nodes for the system pool, every accelerator pool and every CPU pool at its maximum size
  (``nodes.pool_node``), as the cluster autoscaler could create them, so "Pending" means "never";
- the Helm releases the synthesized stack installs (``gke-accel synth --env E``: ``helm_release`` resources
  whose chart is ``kueue`` or ``jobset``): their CRDs from the pinned Go modules, the controllers on
  loopback with their webhooks registered by URL; Kueue with the Configuration from the release's values;
- where the environment has capacity ladders, a stand-in for GKE's ComputeClass CRD
  (``computeclass-crd.yaml`` here: GKE's documented fields; GKE ships the real one in every cluster);
- the platform objects exactly as ``gke-accel manifests --env E --out DIR`` writes them, applied with
  ``kubectl apply -f DIR/E/`` (namespaces, LimitRanges, quotas, network policies, RBAC and, where the
  environment has queues, the Kueue objects; with ladders, their ComputeClasses).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.queues.install import JOBSET, KUEUE
from gke_accel.twin.cluster import WORKLOAD_CONTROLLERS, LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import KueueController, install_crds, release_crds
from gke_accel.twin.lifecycle import NodeLifecycle
from gke_accel.twin.nodes import pool_node
from gke_accel.twin.webhooks import WebhookCA

REPO = Path(__file__).resolve().parents[3]  # the checkout (tools/, config/)
CONFIG = REPO / "config"
GKE_ACCEL = [str(Path(sys.executable).parent / "gke-accel")]  # the installed CLI, as a user runs it
ACCELERATOR_RESOURCES = ("google.com/tpu", "nvidia.com/gpu")
# GKE's ComputeClass CRD as documented (GKE builds the real one in); the capacity ladders' classes need it
COMPUTECLASS_CRD = Path(__file__).resolve().parent / "computeclass-crd.yaml"


def plan_of(env: str, config_dir: Path = CONFIG) -> EnvironmentPlan:
    return load_environment(str(config_dir / f"{env}.yaml"))


def _cli(*args: str) -> str:
    out = subprocess.run([*GKE_ACCEL, *args], capture_output=True, text=True, env=os.environ, cwd=REPO)
    if out.returncode != 0:
        raise RuntimeError(f"gke-accel {' '.join(args)} exited {out.returncode}: {out.stderr[-2000:]}")
    return out.stdout


def helm_releases(env: str, outdir: Path, config_dir: Path = CONFIG) -> dict[str, dict[str, Any]]:
    """The stack's ``helm_release`` resources by chart name, from ``gke-accel synth --env E``."""
    _cli("synth", "--env", env, "--config-dir", str(config_dir), "--outdir", str(outdir))
    stack = json.loads((outdir / "stacks" / env / "cdk.tf.json").read_text())
    releases = stack.get("resource", {}).get("helm_release", {}).values()
    return {str(r["chart"]): r for r in releases}


def kueue_configuration_of(release: dict[str, Any]) -> dict[str, Any]:
    """Kueue's Configuration as the release passes it (chart values ``managerConfig.controllerManagerConfigYaml``)."""
    for text in release.get("values", []):
        values = yaml.safe_load(text) or {}
        config = values.get("managerConfig", {}).get("controllerManagerConfigYaml")
        if config:
            loaded: dict[str, Any] = yaml.safe_load(config)
            return loaded
    raise AssertionError(f"the kueue release passes no managerConfig.controllerManagerConfigYaml: {release}")


def all_nodes(plan: EnvironmentPlan, per_pool: str | int = "max") -> list[dict[str, Any]]:
    """The system pool's, every accelerator pool's and every CPU pool's nodes: each pool at its maximum size
    (``"max"``, as the cluster autoscaler could grow it), or ``per_pool`` nodes (at most the maximum)."""
    pools = [plan.cluster.system_pool, *plan.pools, *plan.cpu_pools]
    if per_pool != "max" and (isinstance(per_pool, str) or per_pool < 1):
        raise ValueError(f"per_pool: {per_pool!r} is neither 'max' nor a node count >= 1")

    def count(pool: NodePoolPlan) -> int:
        most = pool.node_bounds()[1]
        return most if per_pool == "max" else min(int(per_pool), most)

    return [pool_node(pool, i) for pool in pools for i in range(count(pool))]


class EnvironmentRun:
    def __init__(
        self,
        env: str,
        cluster: LocalCluster,
        plan: EnvironmentPlan,
        releases: dict[str, Any],
        per_pool: str | int = "max",
    ) -> None:
        self.env, self.cluster, self.plan, self.releases = env, cluster, plan, releases
        self.nodes = {n["metadata"]["name"]: n for n in all_nodes(plan, per_pool)}
        self.kueue: KueueController | None = None
        self.jobset: JobSetController | None = None

    @classmethod
    @contextmanager
    def start(cls, env: str, state: Path) -> Iterator[EnvironmentRun]:
        run = cls.launch(env, state)
        try:
            yield run
        finally:
            run.stop()

    @classmethod
    def launch(
        cls,
        env: str,
        state: Path,
        *,
        config_dir: Path = CONFIG,
        per_pool: str | int = "max",
        detached: bool = False,
        on_step: Callable[[str], None] | None = None,
        on_releases: Callable[[dict[str, Any]], None] | None = None,
        lifecycle: NodeLifecycle | None = None,
    ) -> EnvironmentRun:
        """Bring the environment up and return it running; on any failure everything started is stopped.
        ``detached``: the processes outlive this one (``gke-accel twin up``); ``on_step`` hears each step;
        ``on_releases`` sees the stack's Helm releases before any process starts (and may raise);
        ``lifecycle``: node-health detection through the engines (twin/lifecycle.py, the simulate twin)."""
        step = on_step or (lambda _: None)
        plan = plan_of(env, config_dir)
        all_nodes(plan, per_pool)  # a bad per_pool fails before anything starts
        step("synthesizing the stack (its Helm releases) and the platform manifests")
        releases = helm_releases(env, state / "synth", config_dir)
        _cli("manifests", "--env", env, "--config-dir", str(config_dir), "--out", str(state / "manifests"))
        if on_releases is not None:
            on_releases(releases)
        step("starting etcd, kube-apiserver, kube-controller-manager")
        cluster = LocalCluster.start(
            state / "k8s", controllers=WORKLOAD_CONTROLLERS, detached=detached, lifecycle=lifecycle
        )
        run = cls(env, cluster, plan, releases, per_pool)
        try:
            step("starting kube-scheduler and kwok")
            cluster.start_scheduler()
            cluster.start_kwok(complete_jobs=False)
            step(f"creating {len(run.nodes)} nodes")
            cluster.create_nodes(list(run.nodes.values()))
            ca = WebhookCA(state / "webhook-ca")
            crds = [*(release_crds(KUEUE) if "kueue" in releases else []),
                    *(release_crds(JOBSET) if "jobset" in releases else []),
                    *([COMPUTECLASS_CRD] if ladders_of(plan) else [])]  # fmt: skip
            if crds:
                step(f"installing {len(crds)} CRDs")
                install_crds(cluster, crds)
            if "jobset" in releases:
                step("starting the JobSet controller")
                run.jobset = JobSetController.start(cluster, state / "jobset", ca)
            if "kueue" in releases:
                step("starting the Kueue controller")
                config = kueue_configuration_of(releases["kueue"])
                run.kueue = KueueController.start(cluster, config, state / "kueue", ca)
            step("applying the platform manifests")
            cluster.apply(state / "manifests" / env)
            run.wait_quotas()
        except BaseException:
            run.stop()
            raise
        return run

    def stop(self) -> None:
        """The controllers (their webhook registrations first), then the cluster; idempotent."""
        for controller in (self.kueue, self.jobset):
            if controller is not None:
                controller.stop()
        self.kueue = self.jobset = None
        self.cluster.stop()

    def team_namespaces(self) -> list[str]:
        return [ns["metadata"]["name"] for ns in self.cluster.get("namespace")["items"]
                if ns["metadata"].get("labels", {}).get("pod-security.kubernetes.io/enforce")]  # fmt: skip

    def wait_quotas(self) -> None:
        """Until every ResourceQuota has a status (else the quota admission refuses every pod) and every
        namespace used by a team has its quota tracked."""

        def ready() -> bool:
            return all(q.get("status", {}).get("hard") for q in self._all("resourcequota"))

        self.cluster.wait_for(ready, timeout=60, what="ResourceQuota status from the quota controller")

    def _all(self, kind: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = json.loads(
            self.cluster.kubectl("get", kind, "--all-namespaces", "-o", "json").stdout
        )["items"]
        return items

    def local_queues(self, namespace: str) -> list[str]:
        """The namespace's LocalQueues as the server has them (none where Kueue is not installed)."""
        if "kueue" not in self.releases:
            return []
        return sorted(
            q["metadata"]["name"] for q in self.cluster.get("localqueues.kueue.x-k8s.io", namespace=namespace)["items"]
        )

    def pods(self, namespace: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.cluster.get("pods", namespace=namespace).get("items", [])
        return [p for p in items if "deletionTimestamp" not in p["metadata"]]

    def pool_of(self, node_name: str) -> str:
        labels = self.nodes[node_name]["metadata"]["labels"]
        return str(labels.get("cloud.google.com/gke-nodepool", node_name))

    def is_accelerator_node(self, node_name: str) -> bool:
        allocatable = self.nodes[node_name]["status"]["allocatable"]
        return any(r in allocatable for r in ACCELERATOR_RESOURCES)


def main(argv: list[str] | None = None) -> int:
    """``python -m gke_accel.twin.environment staging``: bring the environment up, print KUBECONFIG, wait for Ctrl-C."""
    import argparse
    import tempfile
    import time

    parser = argparse.ArgumentParser(description="one shipped environment on a local control plane until Ctrl-C")
    parser.add_argument("env")
    args = parser.parse_args(argv)
    state = Path(tempfile.mkdtemp(prefix=f"gke-accel-env-{args.env}-"))
    with EnvironmentRun.start(args.env, state) as run:
        print(f"{args.env}: {len(run.nodes)} nodes, releases {sorted(run.releases)}; logs under {state}")
        print(f"export KUBECONFIG={run.cluster.kubeconfig}", flush=True)
        try:
            while True:
                run.cluster.check_alive()
                time.sleep(2)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
