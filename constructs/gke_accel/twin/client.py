"""kubectl against a twin's API server: apply, create, get, wait, fake nodes. ``LocalCluster``
(``cluster.py``) provides the admin kubeconfig; these methods are its client side."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml

from gke_accel.twin.binaries import bin_dir

T = TypeVar("T")


def kubectl_binary() -> str:
    """The kubectl built with the control plane (tools/k8s/build.sh: the server's own version), else the
    one on PATH (docs/e2e.md: any 1.27-1.33 client)."""
    built = bin_dir() / "kubectl"
    return str(built) if os.access(built, os.X_OK) else "kubectl"


class KubectlError(RuntimeError):
    """kubectl exited non-zero; ``stderr`` holds the server's message."""

    def __init__(self, args: Sequence[str], returncode: int, stdout: str, stderr: str) -> None:
        super().__init__(f"kubectl {' '.join(args)} failed ({returncode}): {stderr.strip() or stdout.strip()}")
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


class KubectlClient:
    """kubectl with the cluster's kubeconfig (``kubeconfig``, given by the class that mixes this in)."""

    @property
    def kubeconfig(self) -> Path:
        raise NotImplementedError

    def kubectl(
        self, *args: str, stdin: str | None = None, check: bool = True, kubeconfig: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run kubectl against this cluster (admin unless ``kubeconfig`` is given)."""
        cmd = [kubectl_binary(), f"--kubeconfig={kubeconfig or self.kubeconfig}", *args]
        env = {**os.environ, "KUBECONFIG": str(kubeconfig or self.kubeconfig)}
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, check=False)
        if check and proc.returncode != 0:
            raise KubectlError(args, proc.returncode, proc.stdout, proc.stderr)
        return proc

    def apply(
        self,
        manifests: str | Sequence[Mapping[str, Any]] | Path,
        *extra: str,
        check: bool = True,
        kubeconfig: Path | None = None,
    ) -> str:
        """``kubectl apply`` YAML text, a list of objects, or a file/folder (``-f``); returns stdout.
        ``extra`` goes to kubectl (e.g. ``"--server-side"``, ``"-n", "ns"``)."""
        if isinstance(manifests, Path):
            return self.kubectl("apply", "-f", str(manifests), *extra, check=check, kubeconfig=kubeconfig).stdout
        text = manifests if isinstance(manifests, str) else yaml.safe_dump_all([dict(m) for m in manifests])
        return self.kubectl("apply", "-f", "-", *extra, stdin=text, check=check, kubeconfig=kubeconfig).stdout

    def create(self, objects: Sequence[Mapping[str, Any]], *, kubeconfig: Path | None = None, check: bool = True
               ) -> subprocess.CompletedProcess[str]:  # fmt: skip
        """``kubectl create`` (admission sees exactly these objects; no last-applied annotation)."""
        text = yaml.safe_dump_all([dict(o) for o in objects])
        return self.kubectl("create", "-f", "-", stdin=text, check=check, kubeconfig=kubeconfig)

    def get(self, kind: str, name: str | None = None, namespace: str | None = None) -> dict[str, Any]:
        """The object (or, without ``name``, the List) as the server stores it."""
        args = ["get", kind, *([name] if name else []), "-o", "json"]
        if namespace:
            args += ["-n", namespace]
        result: dict[str, Any] = json.loads(self.kubectl(*args).stdout)
        return result

    def wait_for(self, predicate: Callable[[], T], *, timeout: float = 60.0, what: str, interval: float = 0.5) -> T:
        """Poll ``predicate`` until it returns something truthy (returned); TimeoutError names ``what``."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(interval)

    def create_nodes(self, nodes: Sequence[Mapping[str, Any]]) -> None:
        """Create Node objects with their ``status`` (allocatable/capacity kept as given: no kubelet or
        node-lifecycle controller overwrites them). Each gets the label ``type=kwok`` so kwok, when
        started, marks it Ready and runs the pods bound to it."""
        objects = []
        for node in nodes:
            obj = json.loads(json.dumps(node))
            obj.setdefault("apiVersion", "v1")
            obj.setdefault("kind", "Node")
            obj["metadata"].setdefault("labels", {})["type"] = "kwok"
            obj["metadata"].setdefault("annotations", {})["kwok.x-k8s.io/node"] = "fake"
            objects.append(obj)
        self.create(objects)

    def delete_namespace(self, name: str, wait: bool = True) -> None:
        self.kubectl("delete", "namespace", name, "--ignore-not-found", f"--wait={str(wait).lower()}")
