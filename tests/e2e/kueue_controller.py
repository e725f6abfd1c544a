"""The real Kueue controller (and the Kueue/JobSet CRDs) against the e2e tier's local API server.

    crds = pinned_crds()                       # CRD files of the pinned releases, from the Go module cache
    with KueueController.start(cluster, configuration, state_dir) as kueue: ...

The controller is built by tools/kueue/build.sh into ``~/.cache/gke-accel/kueue/`` (flock'd, reused).
It runs out of cluster with ``-kubeconfig``, internal certificate management off, every port on
127.0.0.1, and a self-signed webhook serving certificate in its own state directory. Kueue 0.17.0
refuses to start without ``/etc/kueue/metrics/certs/tls.{crt,key}`` (a fixed path): the controller
runs under ``unshare -m`` with an overlay on ``/etc`` whose writes land in the state directory, so the
machine's ``/etc`` is never written.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml
from localcluster import LocalCluster, free_port

from gke_accel.model.queues.install import JOBSET, KUEUE

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "tools" / "kueue" / "build.sh"


def module_dir(module: str, version: str) -> Path:
    """The module's directory in the Go module cache (downloaded through the module proxy if needed)."""
    out = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@v{version}"], capture_output=True, text=True, check=True
    )
    return Path(json.loads(out.stdout)["Dir"])


def pinned_crds() -> list[Path]:
    kueue = module_dir(KUEUE.go_module, KUEUE.version) / "config" / "components" / "crd" / "bases"
    jobset = module_dir(JOBSET.go_module, JOBSET.version) / "config" / "components" / "crd" / "bases"
    return sorted(kueue.glob("*.yaml")) + sorted(jobset.glob("*.yaml"))


def install_crds(cluster: LocalCluster) -> list[Path]:
    """Install the pinned Kueue and JobSet CRDs (server-side: the Workload CRD is too large for a
    client-side apply) and wait until they are served, as installing Kueue first would."""
    files = pinned_crds()
    for f in files:
        cluster.kubectl("apply", "--server-side", "-f", str(f))
    for f in files:
        cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s", "-f", str(f))
    return files


def build_kueue() -> Path:
    out = subprocess.run([str(BUILD), "kueue"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def _self_signed(directory: Path, name: str = "tls") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(directory / f"{name}.key"),
         "-out", str(directory / f"{name}.crt")],
        check=True, capture_output=True,
    )  # fmt: skip


class KueueController:
    def __init__(self, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.proc, self.log = proc, log

    @classmethod
    def start(cls, cluster: LocalCluster, configuration: dict[str, Any], state: Path) -> KueueController:
        binary = build_kueue()
        state.mkdir(parents=True, exist_ok=True)
        certs = state / "webhook-certs"
        _self_signed(certs)
        metrics = state / "metrics-certs"
        _self_signed(metrics)
        config = {
            **configuration,
            "namespace": KUEUE.namespace,
            "health": {"healthProbeBindAddress": f"127.0.0.1:{free_port()}"},
            "metrics": {"bindAddress": f"127.0.0.1:{free_port()}"},
            "webhook": {"host": "127.0.0.1", "port": free_port(), "certDir": str(certs)},
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
        controller = cls(proc, log)
        deadline = time.monotonic() + 60
        while b"Starting workers" not in log.read_bytes() or b"clusterqueue" not in log.read_bytes().lower():
            if proc.poll() is not None or time.monotonic() > deadline:
                controller.stop()
                raise RuntimeError(f"kueue did not start:\n{controller.tail()}")
            time.sleep(0.3)
        return controller

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def __enter__(self) -> KueueController:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
