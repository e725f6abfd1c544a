"""A fleet (docs/fleet.md) on local control planes: the manager and every worker, each an environment of
the config folder on a control plane of its own, with the real Kueue (MultiKueue on the manager) and
JobSet, kwok nodes of each worker's pools, and the manager reaching each worker through a kubeconfig.

    with FleetRun.start("fleet-hub", state, config_dir=EXAMPLES) as fleet:
        fleet.manager.cluster.apply(job); fleet.where(job)   # -> the worker that runs it

Each cluster is brought up as ``EnvironmentRun`` brings one environment up (kwok nodes of every pool at
its maximum size, the pinned Kueue and JobSet CRDs and controllers, the environment's objects applied in
order), with Kueue's Configuration from the model function the stack's Helm values embed
(``kueue_values``) and the objects from ``cluster_objects``, the function ``manifests`` and ``verify``
use: no stack is synthesized (a synth of three stacks takes 45 s; tests/model/test_fleet_config.py and
``gke-accel synth`` cover the stack). What the twin changes, because it has no GKE fleet: each
MultiKueueCluster names a kubeconfig Secret (``access: kubeconfig-secret``) instead of a ClusterProfile,
and the Secret, with the worker's address and an inline client certificate, is created here at run time
in the manager's kueue-system, never written into any synthesized output; ``worker_lost_timeout``
optionally shortens Kueue's ``workerLostTimeout`` (the drills).
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.cluster.controllers import controller_placement
from gke_accel.model.environment.objects import cluster_objects
from gke_accel.model.fleet.manifests import fleet_manifests, kubeconfig_secret
from gke_accel.model.queues.install import JOBSET, KUEUE, kueue_values
from gke_accel.twin.cluster import WORKLOAD_CONTROLLERS, LocalCluster
from gke_accel.twin.environment import EnvironmentRun
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import KueueController, install_crds, release_crds
from gke_accel.twin.pki import kubeconfig_dict
from gke_accel.twin.webhooks import WebhookCA

KUEUE_API = "kueue.x-k8s.io/v1beta2"


def kueue_configuration(plan: EnvironmentPlan) -> dict[str, Any]:
    """Kueue's Configuration as the stack's Helm values carry it (``managerConfig.controllerManagerConfigYaml``)."""
    assert plan.queues is not None
    values = yaml.safe_load(kueue_values(plan.queues, controller_placement(plan.cluster)))
    config: dict[str, Any] = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    return config


def worker_kubeconfig(cluster: LocalCluster, name: str) -> str:
    """A kubeconfig Kueue's MultiKueue accepts (v0.19.2 validateKubeconfig: certificate-authority-data, no
    file paths, no insecure TLS): the worker's address and its admin client certificate, inline."""
    config = kubeconfig_dict(cluster.server, cluster.state_dir / "pki")
    entry = config["clusters"][0]["cluster"]
    entry["certificate-authority-data"] = base64.b64encode(
        Path(entry.pop("certificate-authority")).read_bytes()
    ).decode()
    user = config["users"][0]["user"]
    for key in ("client-certificate", "client-key"):
        user[f"{key}-data"] = base64.b64encode(Path(user.pop(key)).read_bytes()).decode()
    config["clusters"][0]["name"] = config["contexts"][0]["context"]["cluster"] = name
    return yaml.safe_dump(config)


def start_environment(
    plan: EnvironmentPlan, state: Path, objects: list[dict[str, Any]], config: dict[str, Any], *, detached: bool
) -> EnvironmentRun:
    """One environment on a control plane of its own (see the module docstring); stopped on any failure."""
    cluster = LocalCluster.start(state / "k8s", controllers=WORKLOAD_CONTROLLERS, detached=detached)
    run = EnvironmentRun(plan.name, cluster, plan, {"kueue": {}, "jobset": {}})
    try:
        cluster.start_scheduler()
        cluster.start_kwok(complete_jobs=False)
        cluster.create_nodes(list(run.nodes.values()))
        ca = WebhookCA(state / "webhook-ca")
        install_crds(cluster, [*release_crds(KUEUE), *release_crds(JOBSET)])
        run.jobset = JobSetController.start(cluster, state / "jobset", ca)
        run.kueue = KueueController.start(cluster, config, state / "kueue", ca)
        cluster.apply(objects)
        run.wait_quotas()
    except BaseException:
        run.stop()
        raise
    return run


class FleetRun:
    def __init__(self, plan: EnvironmentPlan, manager: EnvironmentRun, workers: dict[str, EnvironmentRun]) -> None:
        self.plan, self.manager, self.workers = plan, manager, workers
        self.start_seconds = 0.0
        self._lost: dict[str, list[str]] = {}  # a lost worker's API server arguments (restore)

    @classmethod
    @contextmanager
    def start(cls, manager: str, state: Path, **kwargs: Any) -> Iterator[FleetRun]:
        fleet = cls.launch(manager, state, **kwargs)
        try:
            yield fleet
        finally:
            fleet.stop()

    @classmethod
    def launch(
        cls,
        manager: str,
        state: Path,
        *,
        config_dir: Path,
        worker_lost_timeout: int | None = None,
        detached: bool = False,
        on_step: Callable[[str], None] | None = None,
    ) -> FleetRun:
        """Every cluster of the fleet, started side by side; returns once the manager's MultiKueueClusters,
        AdmissionCheck and ClusterQueues are Active. On any failure everything started is stopped."""
        step = on_step or (lambda _: None)
        t0 = time.monotonic()
        plan = load_environment(config_dir / f"{manager}.yaml")  # a ConfigError (exit 2) before any process
        if plan.fleet is None:
            raise ValueError(f"{manager} is not a fleet manager (its file has no fleet: block)")
        workers = {w.name: load_environment(config_dir / f"{w.name}.yaml") for w in plan.fleet.workers}
        config = kueue_configuration(plan)
        multikueue = config["multiKueue"]
        multikueue.pop("clusterProfile", None)  # the twin reaches its workers through kubeconfig Secrets
        if worker_lost_timeout is not None:
            multikueue["workerLostTimeout"] = f"{worker_lost_timeout}s"
        local = replace(cluster_objects(plan), fleet=tuple(fleet_manifests(plan.fleet, access="kubeconfig-secret")))
        jobs: dict[str, tuple[EnvironmentPlan, list[dict[str, Any]], dict[str, Any]]] = {
            name: (p, cluster_objects(p).in_apply_order(), kueue_configuration(p)) for name, p in workers.items()
        }
        jobs[manager] = (plan, local.in_apply_order(), config)
        step(f"starting {len(jobs)} control planes with Kueue and JobSet: {', '.join(jobs)}")
        started: dict[str, EnvironmentRun] = {}
        errors: list[BaseException] = []
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = {
                name: pool.submit(start_environment, p, state / name, objects, cfg, detached=detached)
                for name, (p, objects, cfg) in jobs.items()
            }
            for name, future in futures.items():
                try:
                    started[name] = future.result()
                except BaseException as exc:
                    errors.append(exc)
        fleet = cls(plan, started.get(manager), {n: started[n] for n in workers if n in started})  # type: ignore[arg-type]
        if errors:
            fleet.stop()
            raise errors[0]
        try:
            step("connecting the manager to its workers (kubeconfig Secrets in kueue-system)")
            for name, run in fleet.workers.items():
                fleet.connect(name, run)
            fleet.wait_active()
        except BaseException:
            fleet.stop()
            raise
        fleet.start_seconds = time.monotonic() - t0
        return fleet

    def connect(self, name: str, run: EnvironmentRun) -> None:
        secret = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": kubeconfig_secret(name), "namespace": KUEUE.namespace},
            "stringData": {"kubeconfig": worker_kubeconfig(run.cluster, name)},
        }
        self.manager.cluster.apply([secret])

    def wait_active(self, timeout: float = 120.0) -> None:
        def active(kind: str) -> bool:
            items = self.manager.cluster.get(f"{kind}.kueue.x-k8s.io")["items"]
            return bool(items) and all(_condition(o, "Active") == "True" for o in items)

        for kind in ("multikueueclusters", "admissionchecks", "clusterqueues"):
            self.manager.cluster.wait_for(partial(active, kind), timeout=timeout, what=f"every {kind} Active")

    def stop(self) -> None:
        for run in [*(self.workers.values()), *([self.manager] if self.manager is not None else [])]:
            run.stop()

    def lose(self, worker: str) -> None:
        """The worker goes away at once (a region outage, a deleted cluster): its API server is killed by
        PID (a graceful stop drains watches for more than 30 s); Kueue on the manager loses the connection."""
        cluster = self.workers[worker].cluster
        proc = cluster.procs.pop("kube-apiserver")
        self._lost[worker] = [str(a) for a in proc.args[1:]]  # type: ignore[index]
        proc.kill()
        proc.wait(timeout=30)

    def restore(self, worker: str, timeout: float = 90.0) -> None:
        """The lost worker comes back: its API server again, on the same address and etcd (its objects kept)."""
        cluster = self.workers[worker].cluster
        cluster._spawn("kube-apiserver", self._lost.pop(worker))
        cluster._wait_ready(timeout)

    # ---- where things are ----------------------------------------------------------------------
    def workload_of(self, namespace: str, job: str) -> dict[str, Any] | None:
        """The manager's Workload of a Job (by its owner reference), or None."""
        items = self.manager.cluster.get("workloads.kueue.x-k8s.io", namespace=namespace)["items"]
        for wl in items:
            if any(o.get("name") == job for o in wl["metadata"].get("ownerReferences", [])):
                return dict(wl)
        return None

    def running_on(self, namespace: str, job: str) -> list[str]:
        """The workers where the Job exists with a running pod (each reachable worker asked)."""
        out = []
        for name, run in self.workers.items():
            if "kube-apiserver" not in run.cluster.procs:
                continue
            pods = run.cluster.kubectl("get", "pods", "-n", namespace, "-l", f"job-name={job}", "-o", "json",
                                       check=False)  # fmt: skip
            if pods.returncode == 0 and any(
                p["status"].get("phase") == "Running" for p in json.loads(pods.stdout)["items"]
            ):
                out.append(name)
        return out


def _condition(obj: dict[str, Any], kind: str) -> str | None:
    for c in obj.get("status", {}).get("conditions") or []:
        if c.get("type") == kind:
            return str(c.get("status"))
    return None
