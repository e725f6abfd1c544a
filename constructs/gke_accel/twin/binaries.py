"""Where the twin's Kubernetes binaries live and what the control plane runs: the pinned version, the
cache (``$GKE_ACCEL_CACHE``, default ``~/.cache/gke-accel``), the controllers and admission plugins
(as GKE runs them), and a free loopback port (``$GKE_ACCEL_TWIN_PORTS`` keeps them in a range)."""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Iterable
from pathlib import Path

K8S_VERSION = os.environ.get("K8S_VERSION", "v1.33.13")
CACHE = Path(os.environ.get("GKE_ACCEL_CACHE", str(Path.home() / ".cache" / "gke-accel")))
REPO = Path(__file__).resolve().parents[3]  # the checkout (tools/, config/)
BUILD_SCRIPT = REPO / "tools" / "k8s" / "build.sh"
CONTROL_PLANE = ("etcd", "kube-apiserver", "kube-controller-manager")
# Controllers the tier needs: quota status (else every pod in a quota'd namespace is refused),
# default ServiceAccounts and their tokens, namespace deletion, owner-reference cleanup, Jobs.
DEFAULT_CONTROLLERS = (
    "resourcequota",
    "serviceaccount",
    "serviceaccount-token",
    "namespace",
    "garbagecollector",
    "job",
)
# Kueue scenarios also need the ReplicaSet and Deployment controllers (workload new writes Deployments), and
# the StatefulSet controller (Kueue's statefulset integration: serving StatefulSets are queued like Deployments).
WORKLOAD_CONTROLLERS = (*DEFAULT_CONTROLLERS, "replicaset", "deployment", "statefulset")
# The admission plugins GKE runs that change or refuse pods, as kube-apiserver runs them there:
# - ExtendedResourceToleration: GKE "Run GPUs in Standard node pools" (cloud.google.com/kubernetes-engine/
#   docs/how-to/gpus): GKE taints GPU nodes nvidia.com/gpu:NoSchedule and "automatically applies
#   corresponding tolerations to Pods requesting GPUs by running the ExtendedResourceToleration admission
#   controller" (the page as quoted in kserve docs/samples/accelerators). The plugin tolerates the taint of
#   every extended resource a container *names* in requests or limits, whatever the quantity (kubernetes
#   PR #55839, plugin/pkg/admission/extendedresourcetoleration), so TPU taints (google.com/tpu) too.
# - LimitRanger (defaults from LimitRanges), Priority (priorityClassName -> priority, the global default
#   class), DefaultTolerationSeconds (not-ready/unreachable NoExecute tolerations), PodSecurity (GKE enforces
#   the namespace pod-security.kubernetes.io labels, GA since 1.25), ServiceAccount, RuntimeClass,
#   ResourceQuota, and the webhook/policy plugins: the upstream default set (Kubernetes "Admission
#   Controllers Reference", "Which plugins are enabled by default?"), which GKE runs too.
# Left off: TaintNodesByCondition (it taints new Nodes not-ready until a node-lifecycle controller clears
# it; kwok's fake nodes are made Ready but nothing here runs nodelifecycle; it changes Nodes, not pods) and
# NodeRestriction (kubelet credentials only).
ADMISSION_PLUGINS = (
    "NamespaceLifecycle,LimitRanger,ServiceAccount,PodSecurity,Priority,DefaultTolerationSeconds,"
    "ExtendedResourceToleration,DefaultStorageClass,StorageObjectInUseProtection,RuntimeClass,"
    "MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota"
)


def bin_dir() -> Path:
    return CACHE / "k8s" / K8S_VERSION / "bin"


def find_binaries(need: Iterable[str] = CONTROL_PLANE) -> tuple[Path | None, str]:
    """(bin dir, "") when every binary in ``need`` is built, else (None, reason to skip)."""
    d = bin_dir()
    missing = [n for n in need if not os.access(d / n, os.X_OK)]
    if not missing:
        return d, ""
    listed = ", ".join(missing)
    return None, f"Kubernetes binaries missing in {d} ({listed}): run `make twin-tools` (tools/k8s/build.sh, needs Go)"


PORTS_ENV = "GKE_ACCEL_TWIN_PORTS"  # "LOW-HIGH": the twin's loopback ports come from this range only


class PortRangeError(ValueError):
    pass


def port_range(value: str | None = None) -> tuple[int, int] | None:
    """The range ``$GKE_ACCEL_TWIN_PORTS`` (or ``value``) names, e.g. ``20000-20999``; None: unset (the
    kernel's ephemeral range). A bad value raises ``PortRangeError`` with one line saying what is valid."""
    text = os.environ.get(PORTS_ENV, "") if value is None else value
    if not text.strip():
        return None
    low, sep, high = text.strip().partition("-")
    ok = sep and low.isdigit() and high.isdigit() and 1024 <= int(low) <= int(high) <= 65535
    if not ok or int(high) - int(low) < 15:
        raise PortRangeError(f"{PORTS_ENV}: {text[:40]!r} is not a port range; valid: LOW-HIGH with "
                             "1024 <= LOW, HIGH <= 65535 and at least 16 ports, e.g. 20000-20999")  # fmt: skip
    return int(low), int(high)


_taken: set[int] = set()  # ports this process handed out (a port picked but not yet bound is not free)


def free_port() -> int:
    """A loopback port nothing listens on: the kernel's pick, or one of ``$GKE_ACCEL_TWIN_PORTS``
    (``port_range``), never one this process handed out before. Picked, then bound by the component
    that gets it: another process may take it between the two (the component then fails to start)."""
    span = port_range()
    if span is None:
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if port not in _taken:
                _taken.add(port)
                return port
    low, high = span
    start = random.randrange(low, high + 1)
    for i in range(high - low + 1):
        port = low + (start - low + i) % (high - low + 1)
        if port in _taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _taken.add(port)
        return port
    raise PortRangeError(f"{PORTS_ENV}: no free port left in {low}-{high}; valid: a wider range")
