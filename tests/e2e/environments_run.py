"""One shipped environment (config/<env>.yaml) brought up on a control plane of its own, as the stack installs it.

    with EnvironmentRun.start(env_name, state_dir) as run: run.submit(objects); run.running(...)

- kube-apiserver with GKE's pod admission (localcluster.ADMISSION_PLUGINS: ExtendedResourceToleration),
  kube-controller-manager (Job, ReplicaSet, Deployment, quota, ... controllers), kube-scheduler and kwok;
- kwok nodes for the system pool and every accelerator pool at its maximum size (``nodes.pool_node``), as
  the cluster autoscaler could create them, so "Pending" means "never";
- the Helm releases the synthesized stack installs (``gke-accel synth --env E``: ``helm_release`` resources
  whose chart is ``kueue`` or ``jobset``): their CRDs from the pinned Go modules, the controllers on
  loopback with their webhooks registered by URL; Kueue with the Configuration from the release's values;
- the platform objects exactly as ``gke-accel manifests --env E --out DIR`` writes them, applied with
  ``kubectl apply -f DIR/E/`` (namespaces, LimitRanges, quotas, network policies, RBAC and, where the
  environment has queues, the Kueue objects).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import yaml
from jobset_controller import JobSetController
from kueue_controller import KueueController, install_crds, release_crds
from localcluster import WORKLOAD_CONTROLLERS, LocalCluster
from nodes import pool_node
from webhooks import WebhookCA

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.queues.install import JOBSET, KUEUE

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config"
GKE_ACCEL = [str(Path(sys.executable).parent / "gke-accel")]  # the installed CLI, as a user runs it
ACCELERATOR_RESOURCES = ("google.com/tpu", "nvidia.com/gpu")


def plan_of(env: str) -> EnvironmentPlan:
    return load_environment(str(CONFIG / f"{env}.yaml"))


def _cli(*args: str) -> str:
    out = subprocess.run([*GKE_ACCEL, *args], capture_output=True, text=True, env=os.environ, cwd=REPO)
    if out.returncode != 0:
        raise RuntimeError(f"gke-accel {' '.join(args)} exited {out.returncode}: {out.stderr[-2000:]}")
    return out.stdout


def helm_releases(env: str, outdir: Path) -> dict[str, dict[str, Any]]:
    """The stack's ``helm_release`` resources by chart name, from ``gke-accel synth --env E``."""
    _cli("synth", "--env", env, "--config-dir", str(CONFIG), "--outdir", str(outdir))
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


def all_nodes(plan: EnvironmentPlan) -> list[dict[str, Any]]:
    pools = [plan.cluster.system_pool, *plan.pools]
    return [pool_node(pool, i) for pool in pools for i in range(pool.node_bounds()[1])]


class EnvironmentRun:
    def __init__(self, env: str, cluster: LocalCluster, plan: EnvironmentPlan, releases: dict[str, Any]) -> None:
        self.env, self.cluster, self.plan, self.releases = env, cluster, plan, releases
        self.nodes = {n["metadata"]["name"]: n for n in all_nodes(plan)}

    @classmethod
    @contextmanager
    def start(cls, env: str, state: Path) -> Iterator[EnvironmentRun]:
        plan = plan_of(env)
        releases = helm_releases(env, state / "synth")
        _cli("manifests", "--env", env, "--config-dir", str(CONFIG), "--out", str(state / "manifests"))
        with ExitStack() as stack:
            cluster = LocalCluster.start(state / "k8s", controllers=WORKLOAD_CONTROLLERS)
            stack.callback(cluster.stop)
            cluster.start_scheduler()
            cluster.start_kwok(complete_jobs=False)
            run = cls(env, cluster, plan, releases)
            cluster.create_nodes(list(run.nodes.values()))
            ca = WebhookCA(state / "webhook-ca")
            crds = [*(release_crds(KUEUE) if "kueue" in releases else []),
                    *(release_crds(JOBSET) if "jobset" in releases else [])]  # fmt: skip
            if crds:
                install_crds(cluster, crds)
            if "jobset" in releases:
                stack.enter_context(JobSetController.start(cluster, state / "jobset", ca))
            if "kueue" in releases:
                config = kueue_configuration_of(releases["kueue"])
                stack.enter_context(KueueController.start(cluster, config, state / "kueue", ca))
            cluster.apply(state / "manifests" / env)
            run.wait_quotas()
            yield run

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
    """``python tests/e2e/environments_run.py staging``: bring the environment up, print KUBECONFIG, wait for Ctrl-C."""
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
