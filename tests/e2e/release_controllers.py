"""The Kueue and JobSet controllers of the Helm releases Terraform installed, run out of cluster the way
the releases' Deployments run them, and reached by the API server through the releases' own Services.

    with run_release_controller(cluster, KUEUE_RUN, state) as kueue: ...   # returns once its /readyz is ok

What comes from the release as the server stores it: the controller's configuration (the ConfigMap the
Deployment mounts at ``--config``), its command-line arguments, its identity (the Deployment's
ServiceAccount, impersonated: the chart's own RBAC applies), its webhook certificate (the controller's
internal certificate management writes the Secret the Deployment mounts and patches the ``caBundle`` of
the release's webhook configurations and CRD conversion webhooks; the harness copies the Secret into
the mount path as the kubelet would) and its address (the webhook Service's ClusterIP and port).
What the harness changes, because the process runs on the host: the webhook server listens on the
Service's ClusterIP:port (the cluster's service range is on loopback, ``LocalCluster.start(service_cidr=...)``,
and the API server resolves Services to their ClusterIP: no kube-proxy needed), health and metrics
listen on free 127.0.0.1 ports (JobSet's metrics off), and Kueue runs with ``VisibilityOnDemand=false``
(its visibility server writes self-signed certificates to ``/visibility`` on the host; the releases'
visibility APIServices stay unavailable, which Helm and Terraform tolerate).
Each process runs in a mount namespace of its own (``unshare -m``): ``/tmp`` is the run's folder (the
certificate mount path ``/tmp/k8s-webhook-server/serving-certs``, JobSet's fixed one), and for Kueue an
overlay on ``/etc`` holds the metrics certificates it requires (gke_accel/twin/kueue.py does the same):
nothing on the machine is written.
"""

from __future__ import annotations

import base64
import json
import shlex
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gke_accel.twin.cluster import LocalCluster, free_port
from gke_accel.twin.controller import ControllerProcess
from gke_accel.twin.kueue import _self_signed, build
from gke_accel.twin.pki import kubeconfig_dict

CERT_MOUNT = "/tmp/k8s-webhook-server/serving-certs"  # where both charts mount the webhook Secret


@dataclass(frozen=True)
class ReleaseRun:
    release: str  # the helm_release name (= its chart: kueue, jobset)
    binary: str  # tools/kueue/build.sh target
    deployment: str  # the Deployment the chart creates
    webhook_service: str
    kubeconfig_flag: str
    feature_gates: str = ""  # added to the Deployment's arguments (see the module docstring)
    metrics: bool = True  # metrics on a free loopback port (else off)
    etc_metrics_certs: bool = False  # Kueue 0.17 refuses to start without /etc/kueue/metrics/certs
    namespace_field: bool = False  # the Configuration has ``namespace`` (Kueue; JobSet reads the pod's only)


KUEUE_RUN = ReleaseRun("kueue", "kueue", "kueue-controller-manager", "kueue-webhook-service", "-kubeconfig",
                       feature_gates="VisibilityOnDemand=false", etc_metrics_certs=True,
                       namespace_field=True)  # fmt: skip
JOBSET_RUN = ReleaseRun("jobset", "jobset", "jobset-controller", "jobset-webhook-service", "--kubeconfig",
                        metrics=False)  # fmt: skip
RUNS = {r.release: r for r in (KUEUE_RUN, JOBSET_RUN)}


def _release_objects_ready(cluster: LocalCluster, run: ReleaseRun, namespace: str) -> dict[str, Any] | None:
    """The Deployment once the release's objects the controller needs exist (its webhook Service, both
    webhook configurations, the release's CRDs served), else None."""
    got = cluster.kubectl("get", "deployment", run.deployment, "-n", namespace, "-o", "json", check=False)
    if got.returncode != 0:
        return None
    hooks = cluster.get("validatingwebhookconfigurations")["items"] + cluster.get("mutatingwebhookconfigurations")[
        "items"
    ]
    mine = [h for h in hooks if h["metadata"].get("annotations", {}).get("meta.helm.sh/release-name") == run.release]
    service = cluster.kubectl("get", "service", run.webhook_service, "-n", namespace, "-o", "json", check=False)
    if len(mine) < 2 or service.returncode != 0:
        return None
    for crd in cluster.get("customresourcedefinitions")["items"]:
        release = crd["metadata"].get("annotations", {}).get("meta.helm.sh/release-name")
        conditions = crd.get("status", {}).get("conditions") or []
        if release == run.release and not any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
            return None
    deployment: dict[str, Any] = yaml.safe_load(got.stdout)
    return deployment


def _flag(args: list[str], name: str) -> str | None:
    for arg in args:
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    return None


def _mounted(pod: dict[str, Any], container: dict[str, Any], path: str) -> tuple[dict[str, Any], str | None]:
    """(the volume mounted at ``path`` or above it, the mount's subPath)."""
    for mount in container.get("volumeMounts", []):
        if path == mount["mountPath"] or path.startswith(mount["mountPath"].rstrip("/") + "/"):
            [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
            return volume, mount.get("subPath")
    raise AssertionError(f"nothing of the Deployment is mounted at {path}")


def _inline_kubeconfig(cluster: LocalCluster, user: str, groups: list[str]) -> dict[str, Any]:
    """A kubeconfig impersonating ``user`` with the certificates inlined (the process's /tmp is another folder)."""
    config = kubeconfig_dict(cluster.server, cluster.state_dir / "pki", user, groups)
    entry = config["clusters"][0]["cluster"]
    ca = Path(entry.pop("certificate-authority"))
    entry["certificate-authority-data"] = base64.b64encode(ca.read_bytes()).decode()
    who = config["users"][0]["user"]
    for key in ("client-certificate", "client-key"):
        who[f"{key}-data"] = base64.b64encode(Path(who.pop(key)).read_bytes()).decode()
    return config


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


@contextmanager
def run_release_controller(
    cluster: LocalCluster,
    run: ReleaseRun,
    namespace: str,
    state: Path,
    timeout: float = 300.0,
    check: Callable[[], None] = lambda: None,
) -> Iterator[ControllerProcess]:
    """Wait for the release's objects, start its controller out of cluster as described above, return once
    the controller's own /readyz answers (certificates written, CA injected, webhook server serving: what
    the Deployment's readiness probe checks on GKE). Stopped by PID when the block ends. ``check`` is
    called while waiting and may raise (the apply that installs the release has ended)."""
    def objects() -> dict[str, Any] | None:
        check()
        return _release_objects_ready(cluster, run, namespace)

    deployment = cluster.wait_for(objects, timeout=timeout,
                                  what=f"the {run.release} release's Deployment, Service and webhooks")  # fmt: skip
    assert deployment is not None  # wait_for returns only a truthy value
    pod = deployment["spec"]["template"]["spec"]
    [container] = [c for c in pod["containers"] if c["name"] in ("manager", "controller")]
    args = list(container.get("args", []))
    config_path = _flag(args, "--config")
    assert config_path, f"{run.deployment} runs without --config: {args}"
    volume, key = _mounted(pod, container, config_path)
    configmap = cluster.get("configmap", volume["configMap"]["name"], namespace)
    config = yaml.safe_load(configmap["data"][key or Path(config_path).name])
    cert_volume, _ = _mounted(pod, container, CERT_MOUNT)
    secret_name = cert_volume["secret"]["secretName"]
    service = cluster.get("service", run.webhook_service, namespace)
    [port] = [p["port"] for p in service["spec"]["ports"]]

    root = state / "tmp"  # the process's /tmp
    certs = root / CERT_MOUNT.removeprefix("/tmp/")
    certs.mkdir(parents=True, exist_ok=True)
    health = free_port()
    if run.namespace_field:  # in a pod: the ServiceAccount's namespace file (JobSet's default is its namespace)
        config["namespace"] = namespace
    config = {
        **config,
        "leaderElection": {"resourceNamespace": namespace, **config.get("leaderElection", {})},  # as in a pod
        "webhook": {**config.get("webhook", {}), "host": service["spec"]["clusterIP"], "port": port,
                    "certDir": CERT_MOUNT},
        "health": {**config.get("health", {}), "healthProbeBindAddress": f"127.0.0.1:{health}"},
        "metrics": {**config.get("metrics", {}), "bindAddress": f"127.0.0.1:{free_port()}" if run.metrics else "0"},
    }  # fmt: skip
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    account = pod.get("serviceAccountName", "default")
    identity = _inline_kubeconfig(cluster, f"system:serviceaccount:{namespace}:{account}",
                                  ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"])  # fmt: skip
    (root / "kubeconfig").write_text(yaml.safe_dump(identity))
    gates = [a for a in args if a.startswith("--feature-gates=")]
    args = [a for a in args if not a.startswith(("--config=", "--feature-gates="))]
    if run.feature_gates or gates:
        joined = ",".join(g for g in [*(g.split("=", 1)[1] for g in gates), run.feature_gates] if g)
        args.append(f"--feature-gates={joined}")
    binary = build(run.binary)
    command = [str(binary), f"{run.kubeconfig_flag}=/tmp/kubeconfig", "--config=/tmp/config.yaml", *args]
    steps = ["mount --make-rprivate /"]
    if run.etc_metrics_certs:
        metrics = state / "metrics-certs"
        _self_signed(metrics)
        for d in ("etc-upper", "etc-work"):
            (state / d).mkdir(exist_ok=True)
        steps += [
            f"mount -t overlay overlay -o lowerdir=/etc,upperdir={state}/etc-upper,workdir={state}/etc-work /etc",
            "mkdir -p /etc/kueue/metrics/certs",
            f"cp {metrics}/tls.crt {metrics}/tls.key /etc/kueue/metrics/certs/",
        ]
    steps += [f"mount --bind {root} /tmp", "exec " + shlex.join(command)]
    log = state / f"{run.release}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(["unshare", "-m", "sh", "-c", " && ".join(steps)], stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    controller = ControllerProcess(proc, log, cluster)
    controller.name, controller.binary = run.release, str(binary)
    mirror = SecretMirror(cluster, namespace, secret_name, certs)

    def written() -> bool:
        controller.check_alive()
        return mirror.sync()

    def ready() -> bool:
        check()
        controller.check_alive()
        return _ready(health)

    try:
        cluster.wait_for(written, timeout=timeout,
                         what=f"the {run.release} controller to write its webhook Secret {secret_name}")  # fmt: skip
        mirror.start()
        cluster.wait_for(ready, timeout=timeout, interval=0.3,
                         what=f"the {run.release} controller's /readyz")  # fmt: skip
    except BaseException as exc:
        mirror.stop()
        controller.stop()
        raise RuntimeError(f"{run.release} out of cluster: {exc}\n--- {log}\n{controller.tail(40)}") from exc
    try:
        yield controller
    finally:
        mirror.stop()
        controller.stop()


class SecretMirror:
    """The webhook Secret copied into the certificate folder as the kubelet keeps a secret volume: once
    the controller has written it (``sync()`` True), then every second while the controller runs (the
    certificate rotator may write it more than once: a conflicting update is retried with new
    certificates, and the controller's certificate watcher reloads the files)."""

    KEYS = ("ca.crt", "tls.crt", "tls.key")

    def __init__(self, cluster: LocalCluster, namespace: str, name: str, to: Path) -> None:
        self.cluster, self.namespace, self.name, self.to = cluster, namespace, name, to
        self.written: dict[str, str] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name=f"mirror-{name}", daemon=True)

    def sync(self) -> bool:
        """Copy the Secret's keys when all are set (the charts create it with empty ones); True when done."""
        got = self.cluster.kubectl("get", "secret", self.name, "-n", self.namespace, "-o", "json", check=False)
        data = (json.loads(got.stdout).get("data") or {}) if got.returncode == 0 else {}
        if not all(data.get(k) for k in self.KEYS):
            return False
        for key in self.KEYS:
            if self.written.get(key) != data[key]:
                tmp = self.to / f".{key}.tmp"
                tmp.write_bytes(base64.b64decode(data[key]))
                tmp.rename(self.to / key)
                self.written[key] = data[key]
        return True

    def _loop(self) -> None:
        while not self.stopped.wait(1.0):
            self.sync()

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=10)
