"""Read the cluster, from the current kubeconfig or ``--context``. Read-only.

The kubeconfig is read through the shared input guards (a regular file, a size cap, YAML without alias
bombs or duplicate keys: model/core/input_files.py); the official ``kubernetes`` package (imported
lazily: the other commands never load it) turns it into credentials, exec plugins included. Every GET
goes through ``http.get_json``: connect, read and total deadlines, a body cap, lists in pages, and an
answer that is not a Kubernetes API server's is a one-line ``CannotCheck``. Each object is checked for
the shape the checks read (``_object``): a wrong-shaped answer is CannotCheck too, never drift.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gke_accel.workloads.verify._model import MAX_KUBECONFIG_BYTES, ConfigError, parse_yaml, read_text
from gke_accel.workloads.verify.compare import list_path
from gke_accel.workloads.verify.http import MAX_PAGES, PAGE_SIZE, CannotCheck, get_json, json_type, ssl_context
from gke_accel.workloads.verify.state import ClusterState, Obj

__all__ = ["CannotCheck", "Connection", "connect", "get", "items", "read_state"]


@dataclass(frozen=True)
class Connection:
    client: Any  # kubernetes.client.ApiClient (``--smoke`` writes through it)
    context: str  # the kubeconfig context used
    server: str
    servers: dict[str, str] = field(default_factory=dict)  # every context of the kubeconfig -> its server
    config: Any = None  # kubernetes.client.Configuration: host, TLS files, token
    tls: ssl.SSLContext | None = None


def _kubeconfig_files(kubeconfig: str | None) -> list[Path]:
    if kubeconfig:
        return [Path(kubeconfig)]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _named(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    entries = doc.get(key)
    if entries is None:
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("name"), str)
                                                for e in entries):  # fmt: skip
        raise CannotCheck(f"kubeconfig {key}: not a list of named entries")
    return entries


def read_kubeconfig(files: list[Path]) -> dict[str, Any]:
    """The kubeconfig files merged as kubectl merges them (the first to name an entry wins), each read
    through the shared guards."""
    merged: dict[str, Any] = {"clusters": [], "users": [], "contexts": []}
    seen: dict[str, set[str]] = {k: set() for k in merged}
    read = 0
    for path in files:
        if not os.path.lexists(path) and len(files) > 1:
            continue  # kubectl skips a missing file of $KUBECONFIG
        try:
            doc = parse_yaml(read_text(path, limit=MAX_KUBECONFIG_BYTES, what="a kubeconfig"), str(path))
        except ConfigError as err:
            first = err.issues[0]
            where = first.path.removeprefix(str(path)).strip()
            raise CannotCheck(f"kubeconfig {path}{' ' + where if where else ''} {first.message}") from None
        read += 1
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise CannotCheck(f"kubeconfig {path} is not a mapping")
        for key in ("clusters", "users", "contexts"):
            for entry in _named(doc, key):
                if entry["name"] not in seen[key]:
                    seen[key].add(entry["name"])
                    merged[key].append(entry)
        if "current-context" not in merged and isinstance(doc.get("current-context"), str):
            merged["current-context"] = doc["current-context"]
    if not read:
        raise CannotCheck(f"no kubeconfig: {', '.join(map(str, files))} not found")
    return merged


def _servers(doc: dict[str, Any]) -> dict[str, str]:
    clusters = {c["name"]: (c.get("cluster") or {}).get("server", "") for c in doc["clusters"]
                if isinstance(c.get("cluster") or {}, dict)}  # fmt: skip
    out: dict[str, str] = {}
    for c in doc["contexts"]:
        ctx = c.get("context") or {}
        out.setdefault(str(c["name"]), str(clusters.get(ctx.get("cluster") if isinstance(ctx, dict) else "", "")))
    return out


def connect(context: str | None, kubeconfig: str | None = None) -> Connection:
    """A client for the kubeconfig context; every read has deadlines (http.py)."""
    try:
        from kubernetes import client
        from kubernetes.config.kube_config import KubeConfigLoader
    except ImportError:
        raise CannotCheck("verify needs the 'kubernetes' Python package: pip install kubernetes") from None
    where = f"context {context!r}" if context else "the current context"
    files = _kubeconfig_files(kubeconfig)
    doc = read_kubeconfig(files)
    try:
        loader = KubeConfigLoader(doc, active_context=context, config_base_path=str(files[0].parent.resolve()))
        name = context or doc.get("current-context", "")
        cfg = client.Configuration()
        loader.load_and_set(cfg)
        tls = ssl_context(cfg) if str(cfg.host).startswith("https") else None
    except CannotCheck:
        raise
    except Exception as exc:  # ConfigException, bad certificate data, exec plugin errors
        text = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise CannotCheck(f"cannot use {where} of {files[0]}: {text}") from None
    cfg.retries = False  # --smoke's writes: one try per request
    return Connection(client.ApiClient(cfg), str(name), str(cfg.host), _servers(doc), cfg, tls)


def get(conn: Connection, path: str) -> Obj | None:
    """GET ``path`` as a dict; None when the server says 404 (the kind is not served, or no such object).
    An object must have the shape the checks read (``_object``)."""
    data = get_json(conn.config, conn.tls, path)
    return None if data is None else _object(conn, path, data)


def items(conn: Connection, path: str) -> list[Obj] | None:
    """Every item of a list (read in pages of PAGE_SIZE), each of the shape the checks read; None on 404."""
    out: list[Obj] = []
    token = ""
    for _ in range(MAX_PAGES):
        sep = "&" if "?" in path else "?"
        page = get_json(conn.config, conn.tls, f"{path}{sep}limit={PAGE_SIZE}" + (f"&continue={quote(token)}"
                                                                                   if token else ""), path)  # fmt: skip
        if page is None:
            return out if out else None
        listed = page.get("items")
        if listed is None:
            listed = []
        if not isinstance(listed, list):
            raise _wrong(conn, path, f"items is {json_type(listed)}, not an array")
        out += [_object(conn, path, item) for item in listed]
        meta = page.get("metadata") or {}
        if not isinstance(meta, dict):
            raise _wrong(conn, path, "the list's metadata is not an object")
        token = meta.get("continue") or ""
        if not isinstance(token, str):
            raise _wrong(conn, path, "metadata.continue is not a string")
        if not token:
            return out
    raise CannotCheck(f"{conn.server}: GET {path} has more than {MAX_PAGES * PAGE_SIZE} objects")


def _wrong(conn: Connection, path: str, why: str) -> CannotCheck:
    return CannotCheck(f"{conn.server} answered GET {path} with an object of the wrong shape ({why}): not a "
                       "Kubernetes API server's answer")  # fmt: skip


_MAPPINGS = ("spec", "status")
_STRING_MAPS = ("labels", "annotations")


def _object(conn: Connection, path: str, item: Any) -> Obj:
    """``item`` if it has the shape of a Kubernetes object where the checks read it: an object whose
    ``metadata`` is an object with a string name (and namespace), string-to-string labels and
    annotations, and ``spec``/``status`` objects when present."""
    if not isinstance(item, dict):
        raise _wrong(conn, path, f"an item is {json_type(item)}")
    meta = item.get("metadata")
    if not isinstance(meta, dict):
        raise _wrong(conn, path, "metadata is not an object")
    for key in ("name", "namespace"):
        if key in meta and not isinstance(meta[key], str):
            raise _wrong(conn, path, f"metadata.{key} is not a string")
    for key in _STRING_MAPS:
        value = meta.get(key)
        if value is not None and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
            raise _wrong(conn, path, f"metadata.{key} is not a map of strings")
    for key in _MAPPINGS:
        if item.get(key) is not None and not isinstance(item[key], dict):
            raise _wrong(conn, path, f"{key} is not an object")
    for key in ("kind", "apiVersion"):
        if key in item and not isinstance(item[key], str):
            raise _wrong(conn, path, f"{key} is not a string")
    return item


def read_state(conn: Connection, kinds: Iterable[tuple[str, str]], pod_namespaces: Iterable[str]) -> ClusterState:
    """Nodes, the pods of ``pod_namespaces`` (driver installer, controllers) and every object of
    ``kinds`` ((apiVersion, kind) as the plan writes them, Kueue's included at the version the stack
    writes). A kind the server does not serve is recorded in ``unserved``."""
    nodes = items(conn, "/api/v1/nodes") or []
    pods: list[Obj] = []
    for ns in sorted(set(pod_namespaces)):
        pods += items(conn, f"/api/v1/namespaces/{ns}/pods") or []
    objects: dict[tuple[str, str, str], Obj] = {}
    unserved: set[str] = set()
    for api_version, kind in sorted(set(kinds)):
        listing = items(conn, list_path(api_version, kind))
        if listing is None:
            unserved.add(kind)
            continue
        for item in listing:
            meta = item.get("metadata") or {}
            objects[(kind, meta.get("namespace", ""), meta.get("name", ""))] = item
    namespaces = {name for (kind, _, name) in objects if kind == "Namespace"}
    return ClusterState(nodes=nodes, pods=pods, objects=objects, namespaces=namespaces, unserved=frozenset(unserved))
