"""A small JSON client for the twin's API server (the kubeconfig's server, CA and client certificate):
the runner polls every half second, and a ``kubectl`` process per call would cost more CPU than the
whole control plane on a 2-core machine.

Every call is bounded: ``TIMEOUT`` seconds a socket operation, ``DEADLINE`` seconds an attempt (a
server that drips its answer a byte at a time is cut off), ``MAX_BODY`` bytes an answer. A call that
fails on the way (connection refused or reset, a timeout, a body that is not JSON, HTTP 429 or 5xx: a
loaded API server logs "Handler timeout" and answers 504) is tried again after 1, 2, 4 s, ``ATTEMPTS``
times in all; then it raises ``ApiError`` with one line (``status`` 0 when no HTTP answer came). A create
retried after a lost answer may find its object made by the first attempt (409): that is the object
wanted, and ``create`` returns it."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import socket
import ssl
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

from gke_accel.model.core.input_files import MAX_KUBECONFIG_BYTES, parse_yaml, read_text

Obj = dict[str, Any]
TIMEOUT = 30.0  # seconds a socket operation
DEADLINE = 60.0  # seconds an attempt, however the server drips its answer
ATTEMPTS = 4
BACKOFF = (1.0, 2.0, 4.0)  # seconds before the 2nd, 3rd, 4th attempt
MAX_BODY = 256 * 1024 * 1024  # bytes: a list of every pod of a 10,000-job trace is far below
RETRIED = (429, 500, 502, 503, 504)


class ApiError(RuntimeError):
    """One line: ``HTTP 404: ...`` or, with no HTTP answer (status 0), what went wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}" if status else message)
        self.status, self.reason = status, message


def _reason(err: object) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text[:200]


def _close(conn: http.client.HTTPSConnection) -> None:
    """End ``conn`` from another thread: a blocked read returns (the deadline of an attempt)."""
    with contextlib.suppress(Exception):
        if conn.sock is not None:
            conn.sock.shutdown(socket.SHUT_RDWR)


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
        url = urllib.parse.urlsplit(self.server)
        self.host, self.port, self.prefix = url.hostname or "127.0.0.1", url.port or 443, url.path
        self.ctx = ssl.create_default_context(cafile=_file(cluster, "certificate-authority", tmp))
        self.ctx.load_cert_chain(_file(user, "client-certificate", tmp), _file(user, "client-key", tmp))
        self.timeout, self.deadline, self.attempts, self.sleep = TIMEOUT, DEADLINE, ATTEMPTS, time.sleep
        self.retries = 0  # calls tried again (a loaded server): the runner reports them
        self.attempt = 0  # of the last call: 0 = its first attempt answered

    def request(self, method: str, path: str, body: Obj | None = None, content_type: str = "application/json") -> Obj:
        """One call, tried up to ``ATTEMPTS`` times (module doc); ``ApiError`` with one line if none answers."""
        last: ApiError | None = None
        for attempt in range(self.attempts):
            self.attempt = attempt
            if attempt:
                self.sleep(BACKOFF[min(attempt - 1, len(BACKOFF) - 1)])
                self.retries += 1
            try:
                return self._once(method, path, body, content_type)
            except ApiError as err:
                if err.status and err.status not in RETRIED:
                    raise
                last = err
        assert last is not None
        raise ApiError(last.status, f"{method} {path.split('?')[0]}: {last.reason} (after {self.attempts} attempts)")

    def _once(self, method: str, path: str, body: Obj | None, content_type: str) -> Obj:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=self.timeout)
        timer = threading.Timer(self.deadline, _close, (conn,))  # the whole attempt, however it drips
        timer.daemon = True
        timer.start()
        try:
            conn.request(method, self.prefix + path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read(MAX_BODY + 1)
            if len(raw) > MAX_BODY:
                raise ApiError(0, f"an answer larger than {MAX_BODY // 2**20} MiB")
            if resp.status >= 400:
                text = raw[: 64 * 1024].decode(errors="replace")
                with contextlib.suppress(ValueError, AttributeError):
                    text = json.loads(text).get("message", text)
                raise ApiError(resp.status, " ".join(str(text).split())[:300])
            try:
                out: Obj = json.loads(raw or b"{}")
            except ValueError:
                raise ApiError(0, f"an answer that is not JSON ({raw[:40]!r})") from None
            if not isinstance(out, dict):
                raise ApiError(0, f"a JSON answer that is not an object ({type(out).__name__})")
            return out
        except (OSError, http.client.HTTPException, ValueError) as err:
            # OSError: refused, reset, timed out, TLS; HTTPException: not HTTP; ValueError: a read of the
            # connection the deadline closed
            why = "no answer in time" if not timer.is_alive() else _reason(err)
            raise ApiError(0, f"no usable answer from {self.server} ({why})") from None
        finally:
            timer.cancel()
            conn.close()

    def get(self, path: str) -> Obj:
        return self.request("GET", path)

    def items(self, path: str) -> list[Obj]:
        items: list[Obj] = self.get(path).get("items", [])
        return items

    def create(self, obj: Obj) -> Obj:
        try:
            return self.request("POST", collection(obj), obj)
        except ApiError as err:
            if err.status != 409 or not self.attempt:
                raise
            # a retried POST whose first attempt was made (its answer lost): the object is there
            return self.get(f"{collection(obj)}/{obj['metadata']['name']}")

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
