"""A small JSON client for the twin's API server (the kubeconfig's server, CA and client certificate):
the runner polls every half second, and a ``kubectl`` process per call would cost more CPU than the
whole control plane on a 2-core machine."""

from __future__ import annotations

import base64
import contextlib
import json
import ssl
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from gke_accel.model.core.input_files import MAX_KUBECONFIG_BYTES, parse_yaml, read_text

Obj = dict[str, Any]


class ApiError(RuntimeError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


def _file(user: Obj, key: str, tmp: Path) -> str:
    if user.get(key):
        return str(user[key])
    data = base64.b64decode(user[f"{key}-data"])
    path = tmp / key
    path.write_bytes(data)
    return str(path)


class Api:
    def __init__(self, kubeconfig: Path) -> None:
        # the twin's own admin kubeconfig, read through the shared input guards like every kubeconfig
        config = parse_yaml(read_text(kubeconfig, limit=MAX_KUBECONFIG_BYTES, what="a kubeconfig"), str(kubeconfig))
        ctx_name = config.get("current-context")
        ctx = next(c["context"] for c in config["contexts"] if c["name"] == ctx_name)
        cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == ctx["cluster"])
        user = next(u["user"] for u in config["users"] if u["name"] == ctx["user"])
        self._tmp = tempfile.TemporaryDirectory(prefix="gke-accel-sim-api-")
        tmp = Path(self._tmp.name)
        self.server = str(cluster["server"]).rstrip("/")
        self.ctx = ssl.create_default_context(cafile=_file(cluster, "certificate-authority", tmp))
        self.ctx.load_cert_chain(_file(user, "client-certificate", tmp), _file(user, "client-key", tmp))

    def request(self, method: str, path: str, body: Obj | None = None, content_type: str = "application/json") -> Obj:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as resp:
                out: Obj = json.loads(resp.read() or b"{}")
                return out
        except urllib.error.HTTPError as err:
            text = err.read().decode(errors="replace")
            with contextlib.suppress(ValueError):
                text = json.loads(text).get("message", text)
            raise ApiError(err.code, text) from None

    def get(self, path: str) -> Obj:
        return self.request("GET", path)

    def items(self, path: str) -> list[Obj]:
        items: list[Obj] = self.get(path).get("items", [])
        return items

    def create(self, obj: Obj) -> Obj:
        return self.request("POST", collection(obj), obj)

    def delete(self, path: str) -> None:
        try:
            self.request(
                "DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}
            )
        except ApiError as err:
            if err.status != 404:
                raise

    def patch_status(self, path: str, patch: Obj) -> Obj:
        return self.request("PATCH", path + "/status", patch, "application/merge-patch+json")

    def close(self) -> None:
        self._tmp.cleanup()


def collection(obj: Obj) -> str:
    """The API path of the collection ``obj`` is created in."""
    group_version = obj["apiVersion"]
    plural = {"Job": "jobs", "JobSet": "jobsets", "Deployment": "deployments", "Node": "nodes",
              "ClusterQueue": "clusterqueues"}.get(obj["kind"], obj["kind"].lower() + "s")  # fmt: skip
    base = f"/api/{group_version}" if "/" not in group_version else f"/apis/{group_version}"
    ns = obj.get("metadata", {}).get("namespace")
    return f"{base}/namespaces/{ns}/{plural}" if ns else f"{base}/{plural}"
