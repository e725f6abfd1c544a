"""Read the cluster with the official ``kubernetes`` client (imported lazily: the other commands
never load it), from the current kubeconfig or ``--context``. Read-only.

Every request has a timeout (``REQUEST_TIMEOUT``: connect, then read) and is tried once, so a server
that accepts the connection and never answers fails in well under 30 s (urllib3 would otherwise retry
a read timeout three times). A kubeconfig that cannot be read is a one-line ``CannotCheck``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gke_accel.workloads.verify.compare import list_path
from gke_accel.workloads.verify.state import ClusterState, Obj

REQUEST_TIMEOUT = (5.0, 20.0)  # seconds: connect, read


class CannotCheck(Exception):
    """verify cannot compare (no kubeconfig, unreachable or silent server, no access, wrong cluster):
    exit 1 with this one-line message."""


@dataclass(frozen=True)
class Connection:
    client: Any  # kubernetes.client.ApiClient
    context: str  # the kubeconfig context used
    server: str
    servers: dict[str, str] = field(default_factory=dict)  # every context of the kubeconfig -> its server


def _kubeconfig_files(kubeconfig: str | None) -> list[Path]:
    if kubeconfig:
        return [Path(kubeconfig)]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _servers(files: Iterable[Path]) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in files:
        try:
            doc = yaml.safe_load(f.read_text()) or {}
        except (OSError, yaml.YAMLError):
            continue
        clusters = {c.get("name"): (c.get("cluster") or {}).get("server", "") for c in doc.get("clusters") or []}
        for c in doc.get("contexts") or []:
            out.setdefault(str(c.get("name")), str(clusters.get((c.get("context") or {}).get("cluster"), "")))
    return out


def connect(context: str | None, kubeconfig: str | None = None) -> Connection:
    """A client for the kubeconfig context, requests tried once with ``REQUEST_TIMEOUT``."""
    try:
        from kubernetes import client, config
    except ImportError:
        raise CannotCheck("verify needs the 'kubernetes' Python package: pip install kubernetes") from None
    where = f"context {context!r}" if context else "the current context"
    files = _kubeconfig_files(kubeconfig)
    try:
        _, active = config.list_kube_config_contexts(config_file=str(files[0]) if kubeconfig else None)
        name = context or (active or {}).get("name", "")
        cfg = client.Configuration()
        config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg, persist_config=False)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise CannotCheck(f"kubeconfig {files[0]}{line} is not valid YAML: {getattr(exc, 'problem', exc)}") from None
    except Exception as exc:  # ConfigException, missing file, bad certificate data, exec plugin errors
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise CannotCheck(f"cannot use {where} of {files[0]}: {text}") from None
    cfg.retries = False  # one try per request: the timeout below is the whole wait
    return Connection(client.ApiClient(cfg), str(name), str(cfg.host), _servers(files))


def get(conn: Connection, path: str) -> Obj | None:
    """GET ``path`` as a dict; None when the server says 404 (the kind is not served, or no such object)."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    try:
        data = conn.client.call_api(
            path,
            "GET",
            response_type="object",
            auth_settings=["BearerToken"],
            _return_http_data_only=True,
            _request_timeout=REQUEST_TIMEOUT,
        )
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise CannotCheck(f"GET {path} on {conn.server}: {exc.status} {exc.reason}") from None
    except (OSError, HTTPError) as exc:  # refused, DNS, TLS, timeouts
        text = " ".join(str(exc).split())
        raise CannotCheck(f"{conn.server} did not answer GET {path}: {text}") from None
    return data if isinstance(data, dict) else {}


def read_state(conn: Connection, kinds: Iterable[tuple[str, str]], pod_namespaces: Iterable[str]) -> ClusterState:
    """Nodes, the pods of ``pod_namespaces`` (driver installer, controllers) and every object of
    ``kinds`` ((apiVersion, kind) as the plan writes them, Kueue's included at the version the stack
    writes). A kind the server does not serve is recorded in ``unserved``."""
    nodes = (get(conn, "/api/v1/nodes") or {}).get("items") or []
    pods: list[Obj] = []
    for ns in sorted(set(pod_namespaces)):
        pods += (get(conn, f"/api/v1/namespaces/{ns}/pods") or {}).get("items") or []
    objects: dict[tuple[str, str, str], Obj] = {}
    unserved: set[str] = set()
    for api_version, kind in sorted(set(kinds)):
        listing = get(conn, list_path(api_version, kind))
        if listing is None:
            unserved.add(kind)
            continue
        for item in listing.get("items") or []:
            meta = item.get("metadata") or {}
            objects[(kind, meta.get("namespace", ""), meta.get("name", ""))] = item
    namespaces = {name for (kind, _, name) in objects if kind == "Namespace"}
    return ClusterState(nodes=nodes, pods=pods, objects=objects, namespaces=namespaces, unserved=frozenset(unserved))
