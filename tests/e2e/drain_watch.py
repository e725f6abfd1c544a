"""What a drain does to a replicated application, as the real API server records it.

- ``budget_floor``: how many healthy pods a PodDisruptionBudget promises, from Kubernetes "Specifying a
  Disruption Budget for your Application": ``minAvailable`` pods stay available; at most
  ``maxUnavailable`` of the desired replicas (the scale of the controller) are unhealthy; a percentage
  is of the desired replicas, rounded up to the nearest integer.
- ``ServingWatch``: lists the pods of a label selector, then watches them from the list's
  resourceVersion (``kubectl get --raw ...?watch=1``), so every change the server makes is seen in
  order, none between two samples missed. After each event it counts the healthy pods: a pod is healthy
  when its ``Ready`` condition is ``True`` (PodDisruptionBudgetSpec.unhealthyPodEvictionPolicy, API
  reference) and it is not being deleted ("Disruptions": pods which are deleting count against the
  budget). It keeps the fewest seen and the history of changes.
- ``drain``: the real ``kubectl drain`` as a node upgrade runs it; ``assert_kept``: the floor held.
- ``kubelet_step``: what the kubelet does to a pod being deleted (kwok runs without its pod-delete stage
  in test_lifecycle_drain.py); ``Kubelet`` runs it in a thread, over and over, while a ``kubectl drain``
  waits for the pods to go; ``serving``: the pods of a selector on a node; ``gone``: none left at all.
"""

from __future__ import annotations

import json
import math
import subprocess
import threading
import urllib.parse
from collections.abc import Mapping
from typing import Any

import yaml

from gke_accel.twin.client import KubectlClient, kubectl_binary


def budget_floor(spec: Mapping[str, Any], desired: int) -> int:
    """The healthy pods a PodDisruptionBudget ``spec`` keeps for a controller of scale ``desired``."""

    def pods(value: int | str) -> int:
        if isinstance(value, str) and value.endswith("%"):
            return math.ceil(int(value[:-1]) * desired / 100)
        return int(value)

    if "minAvailable" in spec:
        return pods(spec["minAvailable"])
    return desired - pods(spec["maxUnavailable"])


def healthy(pod: Mapping[str, Any]) -> bool:
    if pod["metadata"].get("deletionTimestamp"):
        return False
    conditions = pod.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def drain(c: KubectlClient, node: str, timeout: str = "60s") -> subprocess.CompletedProcess[str]:
    """Cordon ``node``, evict every pod on it through the eviction API (kubectl retries an eviction the
    budget refuses, HTTP 429, every 5 s) and wait for the pods to be gone, or fail after ``timeout``."""
    return c.kubectl(
        "drain", node, "--ignore-daemonsets", "--delete-emptydir-data", f"--timeout={timeout}", check=False
    )


def assert_kept(watch: ServingWatch, floor: int) -> None:
    assert not watch.errors, watch.report()
    assert watch.lowest >= floor, f"fewer than {floor} healthy replicas: {watch.report()}"


class ServingWatch:
    """``with ServingWatch(cluster, ns, "app=x") as w: ...``; then ``w.lowest``, ``w.history``."""

    def __init__(self, cluster: KubectlClient, namespace: str, selector: str) -> None:
        self.cluster, self.namespace, self.selector = cluster, namespace, selector
        self.pods: dict[str, dict[str, Any]] = {}
        self.lowest = 0
        self.history: list[str] = []  # "<healthy> after <event> <pod>", one per change of the count
        self.errors: list[str] = []
        self.listed: set[str] = set()  # the pods when the watch began
        self.evicted: set[str] = set()  # pods that got a deletionTimestamp while watched
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None

    def healthy(self) -> int:
        with self._lock:
            return sum(healthy(p) for p in self.pods.values())

    def __enter__(self) -> ServingWatch:
        path = f"/api/v1/namespaces/{self.namespace}/pods"
        selector = urllib.parse.urlencode({"labelSelector": self.selector})
        pod_list = json.loads(self.cluster.kubectl("get", "--raw", f"{path}?{selector}").stdout)  # the server's PodList
        version = pod_list["metadata"]["resourceVersion"]
        assert version, pod_list["metadata"]
        self.pods = {p["metadata"]["name"]: p for p in pod_list["items"]}
        self.listed = set(self.pods)
        self.lowest = self.healthy()
        self.history.append(f"{self.lowest} listed")
        watch = urllib.parse.urlencode({"watch": "1", "resourceVersion": version, "timeoutSeconds": "600"})
        self._proc = subprocess.Popen(
            [kubectl_binary(), f"--kubeconfig={self.cluster.kubeconfig}", "get", "--raw", f"{path}?{selector}&{watch}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        self._thread = threading.Thread(target=self._follow, args=(self._proc,), daemon=True)
        self._thread.start()
        return self

    def _follow(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:  # the API server writes one JSON watch event a line
            if line.strip():
                self._apply(json.loads(line))

    def _apply(self, event: Mapping[str, Any]) -> None:
        kind, obj = event["type"], event["object"]
        if kind == "ERROR":
            self.errors.append(str(obj))
            return
        if kind == "BOOKMARK":
            return
        name = obj["metadata"]["name"]
        with self._lock:
            before = sum(healthy(p) for p in self.pods.values())
            if kind == "DELETED":
                self.pods.pop(name, None)
            else:
                self.pods[name] = obj
            if obj["metadata"].get("deletionTimestamp"):
                self.evicted.add(name)
            now = sum(healthy(p) for p in self.pods.values())
            if now != before:
                self.history.append(f"{now} after {kind} {name} (node {obj['spec'].get('nodeName')})")
            self.lowest = min(self.lowest, now)

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            if self._proc.poll() is not None:  # the watch ended early: what it saw is not the whole story
                self.errors.append(f"watch exited {self._proc.returncode}")
            self._proc.terminate()  # the kubectl this watch started, by its PID
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        if self._thread is not None:
            self._thread.join(timeout=10)

    def report(self) -> str:
        return (
            "healthy pods seen: " + "; ".join(self.history) + (f"; watch errors: {self.errors}" if self.errors else "")
        )


def kubelet_step(c: KubectlClient, namespace: str) -> None:
    """The kubelet's part of an eviction, for every pod being deleted: the container is killed (SIGTERM,
    exit 143), so a ``restartPolicy: Never`` pod ends Failed (the Job controller then reads its
    DisruptionTarget condition, set by the eviction API); then the pod object is removed."""
    ns = ["-n", namespace]
    for p in yaml.safe_load(c.kubectl("get", "pods", *ns, "-o", "yaml").stdout)["items"]:
        meta, spec, status = p["metadata"], p["spec"], p.get("status", {})
        if not meta.get("deletionTimestamp"):
            continue
        name = meta["name"]
        if spec.get("restartPolicy") == "Never" and status.get("phase") not in ("Failed", "Succeeded"):
            container = spec["containers"][0]["name"]
            killed = {"name": container, "ready": False, "restartCount": 0, "image": spec["containers"][0]["image"],
                      "imageID": "", "state": {"terminated": {"exitCode": 143, "reason": "Error"}}}  # fmt: skip
            patch = {"status": {"phase": "Failed", "containerStatuses": [killed]}}
            c.kubectl("patch", "pod", name, *ns, "--subresource=status", "--type=merge", "-p", json.dumps(patch),
                      check=False)  # fmt: skip
        else:
            c.kubectl("delete", "pod", name, *ns, "--grace-period=0", "--force", "--wait=false", check=False)


def serving(c: KubectlClient, namespace: str, selector: str) -> list[dict[str, Any]]:
    """The pods of ``selector`` bound to a node and not being deleted."""
    items: list[dict[str, Any]] = json.loads(
        c.kubectl("get", "pods", "-n", namespace, "-l", selector, "-o", "json").stdout
    )["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp") and p["spec"].get("nodeName")]


def gone(c: KubectlClient, namespace: str, selector: str) -> bool:
    """No pod of ``selector`` left at all (Pending, Running or being deleted), the kubelet's part done."""
    kubelet_step(c, namespace)
    return not c.kubectl("get", "pods", "-n", namespace, "-l", selector, "-o", "name").stdout.strip()


class Kubelet:
    """``with Kubelet(cluster, namespace):`` runs ``kubelet_step`` every ``interval`` seconds in a thread
    until the block ends; an exception in the step is raised again there."""

    def __init__(self, c: KubectlClient, namespace: str, interval: float = 0.2) -> None:
        self.cluster, self.namespace, self.interval = c, namespace, interval
        self._stop = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                kubelet_step(self.cluster, self.namespace)
            except Exception as exc:  # handed to the test's thread in __exit__
                self._failure = exc
                return
            self._stop.wait(self.interval)

    def __enter__(self) -> Kubelet:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        if self._failure is not None:
            raise self._failure
