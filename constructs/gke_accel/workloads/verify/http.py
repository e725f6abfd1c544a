"""GET against a Kubernetes API server with deadlines, a body cap and a check that the answer is one.

``verify`` and ``explain`` read through here (live.py). The ``kubernetes`` package still reads the
kubeconfig (certificates, tokens, exec plugins such as gke-gcloud-auth-plugin), but its HTTP layer has
only a per-``recv`` read timeout: a server that sends a byte every few seconds, or a body that never
ends, holds it forever, and it reads a whole body into memory before anything checks it. Here:

- connect (and TLS handshake) within ``CONNECT_SECONDS``; the whole request, headers and body, within
  ``DEADLINE_SECONDS``: every ``recv`` waits at most what is left (``_DeadlineSSLSocket``);
- at most ``MAX_BODY_BYTES`` of body (lists are read in pages of ``PAGE_SIZE`` items, ``?limit=`` and
  ``continue``: the API server's chunking, so a real cluster's answer stays far below the cap);
- an answer that is not HTTP, not JSON, or JSON that is not an object is "not a Kubernetes API server";
  a 404 is None (the kind is not served or the object does not exist); another status is its reason.

Every failure is one ``CannotCheck`` line; nothing here reports drift from an answer it could not read.
"""

from __future__ import annotations

import http.client
import json
import math
import socket
import ssl
import time
from typing import Any
from urllib.parse import urlsplit

CONNECT_SECONDS = 5.0
READ_SECONDS = 20.0  # the longest wait for one recv (within the deadline)
DEADLINE_SECONDS = 30.0  # one request, connect to the last byte of the body
MAX_BODY_BYTES = 32 * 1024 * 1024  # a page of 500 objects of GKE's largest kinds is a few MB
PAGE_SIZE = 500
MAX_PAGES = 200  # 100,000 objects of one kind


class CannotCheck(Exception):
    """The cluster cannot be read (no kubeconfig, unreachable, silent or misbehaving server, no
    access, wrong cluster): exit 1 with this one-line message."""


class _Deadline:
    deadline = math.inf

    def _arm(self: Any) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"timed out: no complete answer within {DEADLINE_SECONDS:.0f} s")
        self.settimeout(min(READ_SECONDS, left))


class _DeadlineSSLSocket(_Deadline, ssl.SSLSocket):
    def recv(self, buflen: int = 1024, flags: int = 0) -> bytes:
        self._arm()
        return super().recv(buflen, flags)

    def recv_into(self, buffer: Any, nbytes: int | None = None, flags: int = 0) -> int:
        self._arm()
        return super().recv_into(buffer, nbytes, flags)

    def read(self, len: int = 1024, buffer: Any = None) -> Any:
        self._arm()
        return super().read(len, buffer)


class _DeadlineSocket(_Deadline, socket.socket):
    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        self._arm()
        return super().recv(bufsize, flags)

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self._arm()
        return super().recv_into(buffer, nbytes, flags)


def ssl_context(cfg: Any) -> ssl.SSLContext:
    """TLS as the kubeconfig says (its CA, client certificate, insecure-skip-tls-verify)."""
    ctx = ssl.create_default_context(cafile=cfg.ssl_ca_cert or None)
    if not cfg.verify_ssl:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cfg.cert_file:
        ctx.load_cert_chain(cfg.cert_file, cfg.key_file or None)
    ctx.sslsocket_class = _DeadlineSSLSocket
    return ctx


class _Connection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None, server_name: str | None) -> None:
        super().__init__(host, port, timeout=CONNECT_SECONDS, context=tls or ssl.create_default_context())
        self.tls, self.server_name = tls, server_name
        self.deadline = time.monotonic() + DEADLINE_SECONDS

    def connect(self) -> None:
        raw = socket.create_connection((self.host, self.port), timeout=CONNECT_SECONDS)
        if self.tls is None:
            sock = _DeadlineSocket(raw.family, raw.type, raw.proto, fileno=raw.detach())
            sock.deadline = self.deadline
            self.sock = sock
            return
        try:
            raw.settimeout(min(CONNECT_SECONDS, max(0.01, self.deadline - time.monotonic())))
            wrapped = self.tls.wrap_socket(raw, server_hostname=self.server_name or self.host)
        except BaseException:
            raw.close()
            raise
        assert isinstance(wrapped, _DeadlineSSLSocket)
        wrapped.deadline = self.deadline
        self.sock = wrapped


def _not_kubernetes(server: str, path: str, why: str) -> CannotCheck:
    return CannotCheck(f"{server} is not a Kubernetes API server (GET {path}: {why})")


def _preview(body: bytes) -> str:
    text = body[:60].decode("utf-8", errors="replace")
    shown = "".join(ch if ch.isprintable() else "?" for ch in text)
    return repr(shown) + ("..." if len(body) > 60 else "")


def get_json(cfg: Any, tls: ssl.SSLContext | None, path: str, shown: str = "") -> dict[str, Any] | None:
    """GET ``path``: the JSON object, or None on 404; CannotCheck (one line, naming ``shown`` or the path)
    on anything else."""
    full, path = path, shown or path
    url = urlsplit(cfg.host)
    server = cfg.host
    if url.scheme not in ("https", "http") or not url.hostname:
        raise CannotCheck(f"the kubeconfig's server {server!r} is not an https:// URL")
    port = url.port or (443 if url.scheme == "https" else 80)
    conn = _Connection(url.hostname, port, tls if url.scheme == "https" else None, cfg.tls_server_name)
    headers = {"Accept": "application/json", "User-Agent": "gke-accel"}
    auth = cfg.auth_settings().get("BearerToken")
    if auth and auth.get("value"):
        headers["Authorization"] = auth["value"]
    try:
        conn.request("GET", url.path.rstrip("/") + full, headers=headers)
        resp = conn.getresponse()
        body = resp.read(MAX_BODY_BYTES + 1)
        if len(body) > MAX_BODY_BYTES:
            raise CannotCheck(f"{server} answered GET {path} with more than {MAX_BODY_BYTES // 2**20} MiB")
    except (http.client.HTTPException, ssl.SSLError, UnicodeError) as exc:
        if isinstance(exc, ssl.SSLCertVerificationError):
            raise CannotCheck(f"{server}: its TLS certificate is not trusted ({exc.verify_message})") from None
        raise _not_kubernetes(server, path, f"the answer is not HTTP ({type(exc).__name__})") from None
    except TimeoutError:
        raise CannotCheck(f"{server} did not answer GET {path} in time (timed out: {CONNECT_SECONDS:.0f} s to "
                          f"connect, {DEADLINE_SECONDS:.0f} s for the whole answer)") from None  # fmt: skip
    except OSError as exc:  # refused, unreachable, DNS, reset
        raise CannotCheck(f"{server} did not answer GET {path}: {exc.strerror or exc}") from None
    finally:
        conn.close()
    if resp.status == 404:
        return None
    kind = (resp.getheader("Content-Type") or "").split(";")[0].strip()
    if resp.status != 200:
        reason = _status_message(body) or resp.reason
        if kind != "application/json" and resp.status not in (401, 403):
            raise _not_kubernetes(server, path, f"HTTP {resp.status} {kind or 'without a content type'}")
        raise CannotCheck(f"GET {path} on {server}: {resp.status} {reason}"[:400])
    if kind != "application/json":
        raise _not_kubernetes(server, path, f"answered {kind or 'no content type'}: {_preview(body)}")
    try:
        data = json.loads(body, parse_constant=_refuse)
    except (ValueError, RecursionError):
        raise _not_kubernetes(server, path, f"the answer is not JSON: {_preview(body)}") from None
    if not isinstance(data, dict):
        raise _not_kubernetes(server, path, f"the answer is {json_type(data)}, not an object")
    return data


def json_type(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    names = {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _refuse(name: str) -> Any:
    raise ValueError(name)


def _status_message(body: bytes) -> str:
    """The message of a Kubernetes ``Status`` body, if the body is one."""
    try:
        data = json.loads(body[:65536])
    except (ValueError, RecursionError):
        return ""
    message = data.get("message") if isinstance(data, dict) else None
    return " ".join(message.split())[:200] if isinstance(message, str) else ""
