"""The real JobSet controller (v0.12.0, the release the stacks install) against the e2e tier's API server.

    install_crds(cluster, release_crds(JOBSET))                  # kueue_controller helpers
    with JobSetController.start(cluster, state_dir, ca) as jobset: ...

Built by ``tools/kueue/build.sh jobset`` into ``~/.cache/gke-accel/kueue/`` (flock'd, reused). It runs out of
cluster (``--kubeconfig``), no leader election, internal cert management off, health on 127.0.0.1, metrics
off (bind address ``0``), and its webhook server on 127.0.0.1 with a certificate signed by the run's
``WebhookCA``. Its webhooks (the release's ``config/components/webhook`` with its patches: the JobSet
defaulting/validation webhooks and the pod webhooks ``mpod.kb.io``/``vpod.kb.io`` that hold follower pods
of an exclusive-topology JobSet until the leader's node pool is known) are registered by URL; ``stop()``
removes them, then stops the process by its PID (its own process group).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml

from gke_accel.model.queues.install import JOBSET
from gke_accel.twin.cluster import LocalCluster, free_port
from gke_accel.twin.controller import ControllerProcess
from gke_accel.twin.kueue import build, wait_webhook_effective, webhook_component
from gke_accel.twin.webhooks import WebhookCA, by_url, kustomized_webhooks, register, wait_listening

# JobSet's defaulting webhook enables DNS hostnames when a JobSet leaves it unset (pkg/webhooks/jobset_webhook.go,
# Default); the CRD has no such default, so a dry run coming back with it proves the webhook ran.
DEFAULTING_PROBE: dict[str, Any] = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "metadata": {"name": "jobset-webhook-probe", "namespace": "default"},
    "spec": {
        "replicatedJobs": [
            {
                "name": "w",
                "template": {
                    "spec": {
                        "template": {
                            "spec": {
                                "restartPolicy": "Never",
                                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
                            }
                        }
                    }
                },
            }
        ]
    },
}


class JobSetController(ControllerProcess):
    name = "jobset"

    @classmethod
    def start(
        cls, cluster: LocalCluster, state: Path, ca: WebhookCA | None = None, webhooks: bool = True
    ) -> JobSetController:
        """Start the controller (the JobSet CRD must be installed) and register its webhooks by URL."""
        binary = build("jobset")
        state.mkdir(parents=True, exist_ok=True)
        ca = ca or WebhookCA(state / "webhook-ca")
        certs = ca.serving_cert(state / "webhook-certs")
        port = free_port()
        config = {
            "apiVersion": "config.jobset.x-k8s.io/v1alpha1",
            "kind": "Configuration",
            "leaderElection": {"leaderElect": False},
            "internalCertManagement": {"enable": False},
            "health": {"healthProbeBindAddress": f"127.0.0.1:{free_port()}"},
            "metrics": {"bindAddress": "0"},
            "webhook": {"host": "127.0.0.1", "port": port, "certDir": str(certs)},
        }
        (state / "config.yaml").write_text(yaml.safe_dump(config))
        cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": JOBSET.namespace}}])
        log = state / "jobset.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(binary), f"--kubeconfig={cluster.kubeconfig}", f"--config={state / 'config.yaml'}"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig), "POD_NAMESPACE": JOBSET.namespace},
            )  # fmt: skip
        controller = cls(proc, log, cluster)
        controller.binary = str(binary)
        try:
            deadline = time.monotonic() + 60
            while b"Starting workers" not in log.read_bytes():
                controller.check_alive()
                if time.monotonic() > deadline:
                    raise TimeoutError("no 'Starting workers' in 60 s")
                time.sleep(0.3)
            if webhooks:
                wait_listening(port, alive=controller.check_alive)
                controller.webhooks = by_url(
                    kustomized_webhooks(webhook_component(JOBSET.go_module, JOBSET.version)), port, ca.bundle, "jobset"
                )
                register(cluster, controller.webhooks)
                wait_webhook_effective(
                    cluster,
                    DEFAULTING_PROBE,
                    lambda js: js["spec"].get("network", {}).get("enableDNSHostnames") is True,
                    "JobSet's defaulting webhook",
                )
        except KeyboardInterrupt:  # Ctrl-C stays Ctrl-C, not a start failure with the log's shutdown lines
            controller.stop()
            raise
        except BaseException as exc:
            controller.stop()
            raise RuntimeError(f"jobset did not start: {exc}\n{controller.tail()}") from exc
        return controller
