"""The real JobSet controller (v0.11.1, the pinned ``JOBSET`` release) beside the e2e tier's API server,
with its webhooks registered by URL, so the JobSet defaulting/validation and the pod webhooks that
implement exclusive placement (``alpha.jobset.sigs.k8s.io/exclusive-topology``) run as on a cluster.

    with JobSetRunner.start(cluster, state_dir) as jobset: ...

A minimal runner for tests/e2e/test_multislice.py (the harness's JobSetController is to replace it at
merge). The binary comes from ``tools/kueue/build.sh jobset`` (``~/.cache/gke-accel/kueue/``, flock'd,
reused). Out of cluster with ``--kubeconfig``; the webhook server and health probe listen on 127.0.0.1 on
free ports, metrics are off; the webhook serving certificate is self-signed in the state directory and
is the CA bundle of the webhook configurations. The webhook configurations are JobSet's own
``config/components/webhook/manifests.yaml`` with its kustomize patches (the pod webhooks only see pods
labelled ``jobset.sigs.k8s.io/jobset-name``), pointed at the URL. Stopped by PID (its process group).
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from kueue_controller import BUILD, _self_signed, module_dir
from localcluster import LocalCluster, free_port

from gke_accel.model.queues.install import JOBSET

NAME_PREFIX = "e2e-jobset-"


def build_jobset() -> Path:
    out = subprocess.run([str(BUILD), "jobset"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def jobset_source() -> Path:
    return module_dir(JOBSET.go_module, JOBSET.version)


def install_jobset_crds(cluster: LocalCluster) -> None:
    for crd in sorted((jobset_source() / "config" / "components" / "crd" / "bases").glob("*.yaml")):
        cluster.kubectl("apply", "--server-side", "-f", str(crd))
        cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s", "-f", str(crd))


def webhook_configurations(url: str, ca_pem: bytes) -> list[dict[str, Any]]:
    """JobSet's webhook configurations with its kustomize patches applied, served at ``url``."""
    webhook = jobset_source() / "config" / "components" / "webhook"
    docs = [d for d in yaml.safe_load_all((webhook / "manifests.yaml").read_text()) if d]
    patches = {
        "MutatingWebhookConfiguration": webhook / "patches" / "mutating-patch.yaml",
        "ValidatingWebhookConfiguration": webhook / "patches" / "validating-patch.yaml",
    }
    bundle = base64.b64encode(ca_pem).decode()
    for doc in docs:
        for op in yaml.safe_load(patches[doc["kind"]].read_text()):
            assert op["op"] == "replace" and op["path"].startswith("/webhooks/"), op
            doc["webhooks"][int(op["path"].rsplit("/", 1)[1])] = op["value"]
        doc["metadata"]["name"] = NAME_PREFIX + doc["metadata"]["name"]
        for hook in doc["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"{url}{path}", "caBundle": bundle}
    return docs


class JobSetRunner:
    def __init__(self, proc: subprocess.Popen[bytes], log: Path, cluster: LocalCluster) -> None:
        self.proc, self.log, self.cluster = proc, log, cluster
        self.webhooks: list[tuple[str, str]] = []

    @classmethod
    def start(cls, cluster: LocalCluster, state: Path) -> JobSetRunner:
        binary = build_jobset()
        install_jobset_crds(cluster)
        state.mkdir(parents=True, exist_ok=True)
        certs = state / "webhook-certs"
        _self_signed(certs)  # tls.crt / tls.key: the names controller-runtime's webhook server reads
        port, health = free_port(), free_port()
        config = {
            "apiVersion": "config.jobset.x-k8s.io/v1alpha1",
            "kind": "Configuration",
            "webhook": {"host": "127.0.0.1", "port": port, "certDir": str(certs)},
            "metrics": {"bindAddress": "0"},
            "health": {"healthProbeBindAddress": f"127.0.0.1:{health}"},
            "leaderElection": {"leaderElect": False},
            "internalCertManagement": {"enable": False},
        }
        (state / "config.yaml").write_text(yaml.safe_dump(config))
        log = state / "jobset.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(binary), f"--kubeconfig={cluster.kubeconfig}", f"--config={state / 'config.yaml'}"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        runner = cls(proc, log, cluster)
        try:
            runner._wait_ready(f"http://127.0.0.1:{health}/readyz")
            docs = webhook_configurations(f"https://127.0.0.1:{port}", (certs / "tls.crt").read_bytes())
            cluster.apply(docs)
            runner.webhooks = [(d["kind"], d["metadata"]["name"]) for d in docs]
        except BaseException:
            runner.stop()
            raise
        return runner

    def _wait_ready(self, url: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"jobset controller did not become ready:\n{self.tail()}")
            time.sleep(0.3)

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Unregister the webhooks (failurePolicy Fail would block JobSet pods) and stop the process."""
        for kind, name in self.webhooks:
            self.cluster.kubectl("delete", kind, name, "--ignore-not-found", check=False)
        self.webhooks = []
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def __enter__(self) -> JobSetRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
