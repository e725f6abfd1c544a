"""A real Kubernetes control plane on loopback, for the e2e tier (``make e2e``, ``pytest -m e2e``).

API (the e2e tier's fixtures in tests/e2e/conftest.py and ``gke-accel twin`` use it):

    cluster = LocalCluster.start(state_dir)          # etcd + kube-apiserver + kube-controller-manager
    cluster.start_scheduler(); cluster.start_kwok()  # optional: scheduling, fake nodes that go Ready
    cluster.kubectl("get", "ns")                     # CompletedProcess; raises KubectlError on failure
    cluster.apply(yaml_text_or_objects)              # kubectl apply; returns kubectl's output
    cluster.get("pod", "p", namespace="ns")          # the object as the server stores it (dict)
    cluster.wait_for(lambda: ..., what="...")        # poll until truthy, else TimeoutError naming `what`
    cluster.kubeconfig_for("alice", ["team-a"])      # kubeconfig impersonating a user + groups (RBAC tests)
    cluster.create_nodes(node_dicts)                 # Node objects incl. status (allocatable, capacity)
    cluster.stop()                                   # by PID, idempotent; also registered with atexit

Binaries come from tools/k8s/build.sh (``$GKE_ACCEL_CACHE/k8s/<version>/bin``); ``find_binaries``
returns None with the reason when they are missing, so callers can skip cleanly. Everything listens on
127.0.0.1 on free ports; each run has its own state directory with certificates, the admin kubeconfig
(``cluster.kubeconfig``, a cluster-admin client certificate) and one log per component
(``<state>/logs/<name>.log``, printed on start-up failure).

Run by hand: ``python -m gke_accel.twin.cluster [--scheduler] [--kwok]`` starts one and prints
``export KUBECONFIG=...``; Ctrl-C stops it.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml

from gke_accel.twin.binaries import (
    ADMISSION_PLUGINS,
    BUILD_SCRIPT,
    CACHE,
    CONTROL_PLANE,
    DEFAULT_CONTROLLERS,
    K8S_VERSION,
    REPO,
    WORKLOAD_CONTROLLERS,
    bin_dir,
    find_binaries,
    free_port,
)
from gke_accel.twin.client import KubectlClient, KubectlError
from gke_accel.twin.lifecycle import CONTROLLERS as LIFECYCLE_CONTROLLERS
from gke_accel.twin.lifecycle import NodeLifecycle
from gke_accel.twin.pki import kubeconfig_dict, make_pki
from gke_accel.twin.stages import STAGE_NAME, run_seconds_stage

T = TypeVar("T")


@dataclass
class LocalCluster(KubectlClient):
    """A running control plane. Create with ``LocalCluster.start``; always ``stop()`` (atexit does too)."""

    state_dir: Path
    bins: Path
    server: str = ""
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    start_seconds: float = 0.0  # launch of etcd to a ready /readyz
    # detached (``gke-accel twin up``): every process in a session of its own, outliving this Python
    # process (no atexit stop); ``gke-accel twin down`` stops them by the PIDs in the twin's state file
    detached: bool = False
    # node-health detection through the engines (twin/lifecycle.py); None: no node-lifecycle controller
    lifecycle: NodeLifecycle | None = None

    # ---- lifecycle -------------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        state_dir: Path | None = None,
        bins: Path | None = None,
        controllers: Sequence[str] = DEFAULT_CONTROLLERS,
        timeout: float = 90.0,
        *,
        detached: bool = False,
        service_cidr: str | None = None,
        lifecycle: NodeLifecycle | None = None,
    ) -> LocalCluster:
        """Start etcd, kube-apiserver and kube-controller-manager; return once /readyz is ok and the
        ``default`` ServiceAccount exists. On any failure everything started is stopped and the logs'
        tails are in the exception.

        ``service_cidr`` (e.g. ``127.77.0.0/16``): Services get ClusterIPs from that range, and the API
        server calls a Service-based webhook, conversion webhook or APIService at the Service's
        ClusterIP:port (``--enable-aggregator-routing=false``; by default it picks an address of the
        Service's Endpoints, and Endpoints may not hold loopback addresses). With a loopback range, a
        controller run on the host and listening on its Service's ClusterIP:port answers the API server
        as the release's pod would behind kube-proxy (tests/e2e/release_controllers.py).

        ``lifecycle``: also the node-lifecycle, taint-eviction and pod-GC controllers, with its wall-clock
        detection settings (twin/lifecycle.py; kwok then heartbeats nodes through Leases)."""
        if bins is None:
            bins, reason = find_binaries()
            if bins is None:
                raise FileNotFoundError(reason)
        state = Path(state_dir or tempfile.mkdtemp(prefix="gke-accel-k8s-"))
        state.mkdir(parents=True, exist_ok=True)
        cluster = cls(state_dir=state, bins=bins, detached=detached, lifecycle=lifecycle)
        if not detached:
            atexit.register(cluster.stop)
        try:
            cluster._boot(controllers, timeout, service_cidr)
        except KeyboardInterrupt:  # Ctrl-C stays Ctrl-C (the CLI says so in one line, exit 130)
            cluster.stop()
            raise
        except BaseException as exc:
            logs = cluster.log_tails()
            cluster.stop()
            raise RuntimeError(f"local cluster failed to start: {exc}\n{logs}") from exc
        return cluster

    def _boot(self, controllers: Sequence[str], timeout: float, service_cidr: str | None = None) -> None:
        t0 = time.monotonic()
        health = self.lifecycle
        if health is not None:
            controllers = [*controllers, *(c for c in LIFECYCLE_CONTROLLERS if c not in controllers)]
        pki = self.state_dir / "pki"
        make_pki(pki)
        etcd_client, etcd_peer, api_port = free_port(), free_port(), free_port()
        etcd_url, peer_url = f"http://127.0.0.1:{etcd_client}", f"http://127.0.0.1:{etcd_peer}"
        self._spawn("etcd", [
            "--name=e2e", f"--data-dir={self.state_dir / 'etcd'}", "--unsafe-no-fsync",
            f"--listen-client-urls={etcd_url}", f"--advertise-client-urls={etcd_url}",
            f"--listen-peer-urls={peer_url}", f"--initial-advertise-peer-urls={peer_url}",
            f"--initial-cluster=e2e={peer_url}", "--log-level=warn",
        ])  # fmt: skip
        self.server = f"https://127.0.0.1:{api_port}"
        self._spawn("kube-apiserver", [
            f"--etcd-servers={etcd_url}", "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
            f"--secure-port={api_port}", f"--tls-cert-file={pki / 'apiserver.crt'}",
            f"--tls-private-key-file={pki / 'apiserver.key'}", f"--client-ca-file={pki / 'ca.crt'}",
            f"--service-account-key-file={pki / 'sa.pub'}", f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--authorization-mode=RBAC", "--allow-privileged=true", f"--enable-admission-plugins={ADMISSION_PLUGINS}",
            # it taints every new Node not-ready; without a node-lifecycle controller nothing removes it
            "--disable-admission-plugins=TaintNodesByCondition",
            "--endpoint-reconciler-type=none",
            "--enable-aggregator-routing=" + ("true" if service_cidr is None else "false"),
            f"--service-cluster-ip-range={service_cidr or '10.96.0.0/16'}", "--profiling=false", "--v=1",
            *(health.apiserver_flags() if health else []),
        ])  # fmt: skip
        self.kubeconfig.write_text(yaml.safe_dump(kubeconfig_dict(self.server, pki)))
        self._wait_ready(timeout)
        self.start_seconds = time.monotonic() - t0
        self._spawn("kube-controller-manager", [
            f"--kubeconfig={self.kubeconfig}", "--secure-port=0", "--leader-elect=false",
            f"--controllers={','.join(controllers)}", f"--service-account-private-key-file={pki / 'sa.key'}",
            f"--root-ca-file={pki / 'ca.crt'}", "--use-service-account-credentials=false", "--v=1",
            *(health.controller_manager_flags() if health else []),
        ])  # fmt: skip
        self.wait_for(
            lambda: self.kubectl("get", "serviceaccount", "default", "-n", "default", check=False).returncode == 0,
            timeout=timeout,
            what="the controller-manager to create the default ServiceAccount",
        )

    def start_scheduler(self) -> None:
        """Run kube-scheduler (idempotent): pods get bound to (fake) nodes."""
        if "kube-scheduler" not in self.procs:
            self._spawn("kube-scheduler", [
                f"--kubeconfig={self.kubeconfig}", "--leader-elect=false", "--secure-port=0", "--v=1",
                f"--authentication-kubeconfig={self.kubeconfig}", f"--authorization-kubeconfig={self.kubeconfig}",
            ])  # fmt: skip

    def start_kwok(self, complete_jobs: bool = True) -> None:
        """Run kwok (idempotent): it manages nodes labelled ``type=kwok`` (see ``create_nodes``), marks
        them Ready, heartbeats them, and moves pods bound to them to Running. A pod annotated
        ``gke-accel/run-seconds`` succeeds that many seconds after it runs (stages.py). With
        ``complete_jobs`` (kwok's pod-complete stage) any other Job pod succeeds at once; without it, it
        runs until deleted, like a long training run (queue scenarios need the chips to stay in use)."""
        if "kwok" in self.procs:
            return
        bins, reason = find_binaries(["kwok"])
        stages = sorted((self.bins.parent / "stages").glob("*.yaml"))
        if not complete_jobs:
            stages = [s for s in stages if s.stem != "pod-complete"]
        if bins is None or not stages:
            raise FileNotFoundError(reason or "kwok stage configs missing: run tools/k8s/build.sh --force")
        run_seconds = self.state_dir / "kwok-stages" / f"{STAGE_NAME}.yaml"
        run_seconds.parent.mkdir(exist_ok=True)
        run_seconds.write_text(yaml.safe_dump(run_seconds_stage()))
        stages.append(run_seconds)
        self._spawn("kwok", [
            f"--kubeconfig={self.kubeconfig}", "--manage-all-nodes=false",
            "--manage-nodes-with-label-selector=type=kwok", "--node-ip=127.0.0.1", "--server-address=",
            "--node-port=0",  # no kubelet-like server: with a port kwok would listen on 0.0.0.0
            *[f"--config={s}" for s in stages],
            *(self.lifecycle.kwok_flags() if self.lifecycle else []),
        ])  # fmt: skip

    def stop(self) -> None:
        """Stop every process this cluster started, by PID (TERM, then KILL after 10 s). Idempotent."""
        for name in reversed(list(self.procs)):
            proc = self.procs.pop(name)
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- processes -------------------------------------------------------------------------------
    @property
    def kubeconfig(self) -> Path:
        """The admin (cluster-admin) kubeconfig."""
        return self.state_dir / "admin.kubeconfig"

    def _spawn(self, name: str, args: list[str]) -> None:
        logs = self.state_dir / "logs"
        logs.mkdir(exist_ok=True)
        with open(logs / f"{name}.log", "ab") as log:
            self.procs[name] = subprocess.Popen(
                [str(self.bins / name), *args], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=self.state_dir, start_new_session=self.detached,
            )  # fmt: skip

    def check_alive(self) -> None:
        """Raise (with the log tail) if a component exited."""
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}\n{self.log_tails([name])}")

    def log_tails(self, names: Iterable[str] | None = None, lines: int = 15) -> str:
        out = []
        for log in sorted((self.state_dir / "logs").glob("*.log")):
            if names is None or log.stem in names:
                tail = log.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- {log} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "\n".join(out)

    def _wait_ready(self, timeout: float) -> None:
        pki = self.state_dir / "pki"
        ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        ctx.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))

        def ready() -> bool:
            self.check_alive()
            try:
                with urllib.request.urlopen(f"{self.server}/readyz", context=ctx, timeout=2) as resp:
                    return bool(resp.status == 200)
            except OSError:
                return False

        self.wait_for(ready, timeout=timeout, what=f"{self.server}/readyz", interval=0.2)

    # ---- client helpers --------------------------------------------------------------------------
    def kubeconfig_for(self, user: str, groups: Sequence[str] = ()) -> Path:
        """A kubeconfig whose requests impersonate ``user`` in ``groups`` (plus system:authenticated),
        so RBAC applies exactly as it would to that identity."""
        safe = "".join(c if c.isalnum() else "-" for c in f"{user}-{'-'.join(groups)}")
        path = self.state_dir / f"as-{safe}.kubeconfig"
        path.write_text(yaml.safe_dump(kubeconfig_dict(self.server, self.state_dir / "pki", user, groups)))
        return path


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="start a local control plane until Ctrl-C")
    parser.add_argument("--scheduler", action="store_true")
    parser.add_argument("--kwok", action="store_true")
    parser.add_argument("--state-dir", type=Path)
    args = parser.parse_args(argv)
    if find_binaries()[0] is None:
        print(find_binaries()[1], file=sys.stderr)
        return 3
    with LocalCluster.start(args.state_dir) as cluster:
        if args.scheduler:
            cluster.start_scheduler()
        if args.kwok:
            cluster.start_kwok()
        print(f"ready in {cluster.start_seconds:.1f} s; logs in {cluster.state_dir / 'logs'}")
        print(f"export KUBECONFIG={cluster.kubeconfig}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                cluster.check_alive()
                time.sleep(2)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "ADMISSION_PLUGINS",
    "BUILD_SCRIPT",
    "CACHE",
    "CONTROL_PLANE",
    "DEFAULT_CONTROLLERS",
    "K8S_VERSION",
    "REPO",
    "WORKLOAD_CONTROLLERS",
    "KubectlError",
    "LocalCluster",
    "bin_dir",
    "find_binaries",
    "free_port",
]
