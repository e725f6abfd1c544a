"""The real Kueue controller (and the Kueue/JobSet CRDs) against the e2e tier's local API server.

    crds = pinned_crds()                       # CRD files of the pinned releases, from the Go module cache
    with KueueController.start(cluster, configuration, state_dir) as kueue: ...

The controller is built by tools/kueue/build.sh into ``~/.cache/gke-accel/kueue/`` (flock'd, reused).
It runs out of cluster with ``-kubeconfig``, internal certificate management off, every port on
127.0.0.1, and a webhook serving certificate signed by the run's ``WebhookCA`` (tests/e2e/webhooks.py).
Its webhooks (the release's own ``config/components/webhook``, patches applied) are registered with the
API server by URL, so a Job or JobSet submitted with only the ``kueue.x-k8s.io/queue-name`` label is
suspended by Kueue's webhook and admitted as on GKE; ``stop()`` removes the registrations before it
stops the process (a registered pod webhook with ``failurePolicy: Fail`` and nobody serving it would
refuse every pod of the cluster). Kueue (0.17.0 and 0.19.2 alike,
cmd/kueue/main.go) refuses to start without ``/etc/kueue/metrics/certs/tls.{crt,key}`` (a fixed path): the controller
runs under ``unshare -m`` with an overlay on ``/etc`` whose writes land in the state directory, so the
machine's ``/etc`` is never written.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model.queues.install import JOBSET, KUEUE, Release
from gke_accel.twin.cluster import CACHE, KubectlError, LocalCluster, free_port
from gke_accel.twin.controller import ControllerProcess
from gke_accel.twin.webhooks import WebhookCA, by_url, kustomized_webhooks, register, wait_listening

REPO = Path(__file__).resolve().parents[3]  # the checkout (tools/, config/)
BUILD = REPO / "tools" / "kueue" / "build.sh"


def module_dir(module: str, version: str) -> Path:
    """The module's directory in the Go module cache (downloaded through the module proxy if needed)."""
    out = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@v{version}"], capture_output=True, text=True, check=True
    )
    return Path(json.loads(out.stdout)["Dir"])


def release_crds(release: Release) -> list[Path]:
    """The CRD files of one pinned release (Kueue or JobSet), from its Go module."""
    return sorted(
        (module_dir(release.go_module, release.version) / "config" / "components" / "crd" / "bases").glob("*.yaml")
    )


def pinned_crds() -> list[Path]:
    return release_crds(KUEUE) + release_crds(JOBSET)


def install_crds(cluster: LocalCluster, files: list[Path] | None = None) -> list[Path]:
    """Install CRDs (default: the pinned Kueue and JobSet ones; server-side: the Workload CRD is too large
    for a client-side apply) and wait until they are served, as installing the release first would."""
    files = pinned_crds() if files is None else files
    for f in files:
        cluster.kubectl("apply", "--server-side", "-f", str(f))
    for f in files:
        for doc in yaml.safe_load_all(f.read_text()):
            if doc and doc.get("kind") == "CustomResourceDefinition":
                name = doc["metadata"]["name"]
                # polled here, not `kubectl wait -f`: kubectl 1.33 fails at once on a CRD whose status has
                # no conditions yet (".status.conditions accessor error: <nil>") instead of waiting
                wait_established(cluster, name)
    return files


def wait_established(cluster: LocalCluster, name: str, timeout: float = 60.0) -> None:
    """Until the API server serves the CRD ``name`` (its Established condition True)."""
    cluster.wait_for(partial(_established, cluster, name), timeout=timeout, what=f"CRD {name} Established")


def _established(cluster: LocalCluster, name: str) -> bool:
    conditions = cluster.get("customresourcedefinition", name).get("status", {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def cached_controller(release: Release) -> Path:
    """Where tools/kueue/build.sh puts the release's controller binary (it may not be built yet)."""
    return CACHE / "kueue" / f"{release.name}-v{release.version}"


def build(what: str) -> Path:
    """The controller binary (``kueue`` or ``jobset``) from tools/kueue/build.sh (built once, flock'd)."""
    out = subprocess.run([str(BUILD), what], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def build_kueue() -> Path:
    return build("kueue")


def webhook_component(module: str, version: str) -> Path:
    return module_dir(module, version) / "config" / "components" / "webhook"


def wait_webhook_effective(cluster: LocalCluster, probe: dict[str, Any], effect: Any, what: str) -> None:
    """Until a server-side dry run of ``probe`` comes back with ``effect(stored)`` true: the API server has
    picked up the registration and the controller answers (dry runs call webhooks: ``sideEffects: None``)."""

    def effective() -> bool:
        try:
            out = cluster.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-", stdin=json.dumps(probe))
        except KubectlError:
            return False
        return bool(effect(json.loads(out.stdout)))

    cluster.wait_for(effective, timeout=60, what=what, interval=0.3)


SUSPEND_PROBE = {  # a Job with only the queue label: Kueue's job webhook suspends it (ApplyDefaultForSuspend)
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "kueue-webhook-probe", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "p"}},
    "spec": {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}
        }
    },
}


def _self_signed(directory: Path, name: str = "tls") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(directory / f"{name}.key"),
         "-out", str(directory / f"{name}.crt")],
        check=True, capture_output=True,
    )  # fmt: skip


class KueueController(ControllerProcess):
    name = "kueue"

    @classmethod
    def start(
        cls,
        cluster: LocalCluster,
        configuration: dict[str, Any],
        state: Path,
        ca: WebhookCA | None = None,
        webhooks: bool = True,
    ) -> KueueController:
        """Start Kueue with ``configuration`` (local ports, no leader election and no internal cert
        management laid over it) and, unless ``webhooks=False``, register its webhooks by URL."""
        binary = build_kueue()
        state.mkdir(parents=True, exist_ok=True)
        ca = ca or WebhookCA(state / "webhook-ca")
        certs = ca.serving_cert(state / "webhook-certs")
        metrics = state / "metrics-certs"
        _self_signed(metrics)
        webhook_port = free_port()
        config = {
            **configuration,
            "namespace": KUEUE.namespace,
            "health": {"healthProbeBindAddress": f"127.0.0.1:{free_port()}"},
            "metrics": {"bindAddress": f"127.0.0.1:{free_port()}"},
            "webhook": {"host": "127.0.0.1", "port": webhook_port, "certDir": str(certs)},
            "leaderElection": {"leaderElect": False},
            "internalCertManagement": {"enable": False},
        }
        (state / "config.yaml").write_text(yaml.safe_dump(config))
        cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": KUEUE.namespace}}])
        upper, work = state / "etc-upper", state / "etc-work"
        upper.mkdir(exist_ok=True)
        work.mkdir(exist_ok=True)
        command = " && ".join(
            [
                "mount --make-rprivate /",
                f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc",
                "mkdir -p /etc/kueue/metrics/certs",
                f"cp {metrics}/tls.crt {metrics}/tls.key /etc/kueue/metrics/certs/",
                "exec "
                + shlex.join(
                    [
                        str(binary),
                        f"-kubeconfig={cluster.kubeconfig}",
                        f"-config={state / 'config.yaml'}",
                        "-feature-gates=VisibilityOnDemand=false",
                    ]
                ),
            ]
        )
        log = state / "kueue.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                ["unshare", "-m", "sh", "-c", command], stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        controller = cls(proc, log, cluster)
        controller.binary = str(binary)
        try:
            deadline = time.monotonic() + 60
            while b"Starting workers" not in log.read_bytes() or b"clusterqueue" not in log.read_bytes().lower():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("kueue exited or did not start its workers in 60 s")
                time.sleep(0.3)
            if webhooks:
                wait_listening(webhook_port, alive=controller.check_alive)
                controller.register_webhooks(webhook_port, ca)
        except KeyboardInterrupt:  # Ctrl-C stays Ctrl-C, not a start failure with the log's shutdown lines
            controller.stop()
            raise
        except BaseException as exc:
            controller.stop()
            raise RuntimeError(f"kueue did not start: {exc}\n{controller.tail()}") from exc
        return controller

    def register_webhooks(self, port: int, ca: WebhookCA) -> None:
        """Kueue's MutatingWebhookConfiguration and ValidatingWebhookConfiguration, by URL; returns once
        the API server calls them (a dry-run Job with only the queue label comes back suspended)."""
        self.webhooks = by_url(kustomized_webhooks(webhook_component(KUEUE.go_module, KUEUE.version)), port, ca.bundle,
                               prefix="kueue")  # fmt: skip
        register(self.cluster, self.webhooks)
        wait_webhook_effective(
            self.cluster,
            SUSPEND_PROBE,
            lambda job: job["spec"].get("suspend") is True,
            "Kueue's job webhook to suspend",
        )
