"""Read the cluster with the official ``kubernetes`` client (imported lazily: the other commands
never load it), from the current kubeconfig or ``--context``. Read-only."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads._model import ConfigError, ConfigIssue
from gke_accel.workloads.verify.state import ClusterState, Obj

KUEUE_GROUP, KUEUE_VERSION = "kueue.x-k8s.io", "v1beta1"


def api_client(context: str | None, kubeconfig: str | None = None) -> Any:
    """An ApiClient for the kubeconfig context; a ConfigError (not a traceback) when there is none."""
    try:
        from kubernetes import config
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise ConfigError(
            [ConfigIssue("verify", "needs the 'kubernetes' Python package", "pip install kubernetes")]
        ) from None
    try:
        return config.new_client_from_config(config_file=kubeconfig, context=context)
    except (ConfigException, FileNotFoundError, OSError) as exc:
        where = f"context {context!r}" if context else "the current context"
        raise ConfigError(
            [ConfigIssue("--context", f"cannot use {where}: {exc}", "a context of your kubeconfig")]
        ) from None


def _items(api: Any, result: Any) -> list[Obj]:
    data: dict[str, Any] = api.api_client.sanitize_for_serialization(result)
    return list(data.get("items") or [])


def read_state(api_client: Any, installer_namespace: str) -> ClusterState:
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    core = client.CoreV1Api(api_client)
    try:
        nodes = _items(core, core.list_node())
        namespaces = {n["metadata"]["name"] for n in _items(core, core.list_namespace())}
        pods = _items(core, core.list_namespaced_pod(installer_namespace))
        objects: dict[tuple[str, str, str], Obj] = {}
        for kind, call in (
            ("ResourceQuota", core.list_resource_quota_for_all_namespaces),
            ("LimitRange", core.list_limit_range_for_all_namespaces),
            ("ServiceAccount", core.list_service_account_for_all_namespaces),
        ):
            for item in _items(core, call()):
                meta = item["metadata"]
                objects[(kind, meta.get("namespace", ""), meta["name"])] = item
    except ApiException as exc:
        raise ConfigError(
            [ConfigIssue("cluster", f"read failed: {exc.status} {exc.reason}", "read access to the cluster")]
        ) from None
    except (OSError, HTTPError) as exc:  # connection refused, DNS, TLS, retries exhausted
        raise ConfigError([ConfigIssue("cluster", f"cannot be reached: {exc}", "a reachable API server")]) from None
    kueue: bool | None = None
    custom = client.CustomObjectsApi(api_client)
    try:
        result = custom.list_cluster_custom_object(KUEUE_GROUP, KUEUE_VERSION, "localqueues")
        kueue = True
        for item in result.get("items") or []:
            meta = item["metadata"]
            objects[("LocalQueue", meta.get("namespace", ""), meta["name"])] = item
    except ApiException as exc:
        if exc.status != 404:
            raise ConfigError([ConfigIssue("cluster", f"LocalQueues: {exc.status} {exc.reason}")]) from None
        kueue = False
    return ClusterState(nodes=nodes, pods=pods, objects=objects, namespaces=namespaces, kueue=kueue)
