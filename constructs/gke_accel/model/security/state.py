"""No two environment files share a Terraform state location (one ``terraform apply`` would
overwrite the other's state) or a cluster; and a state prefix is a plain folder path."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from gke_accel.model.core.errors import ConfigIssue


def state_object_prefix(prefix: str) -> str:
    """The folder Terraform's gcs backend really uses for ``prefix``: it trims leading ``/`` and names
    the state object ``path.Join(prefix, "<workspace>.tfstate")`` (Go's path.Join cleans ``//``, ``./``
    and ``..``; hashicorp/terraform internal/backend/remote-state/gcs/backend.go, backend_state.go).
    ``posixpath.normpath`` cleans a relative path the same way; "." is the bucket's top level."""
    return posixpath.normpath(prefix.lstrip("/")).rstrip("/")


def state_location(environment: str, backend: Mapping[str, Any]) -> tuple[str, str] | None:
    """(bucket, folder of the state objects) of a gcs backend as written in a config file, else None."""
    if not isinstance(backend, Mapping) or backend.get("type") != "gcs" or not backend.get("bucket"):
        return None
    prefix = str(backend.get("prefix") or f"gke-accel/{environment}")
    return str(backend["bucket"]), state_object_prefix(prefix)


def prefix_problem(prefix: str) -> str | None:
    """Why a backend prefix is refused: a ``.``, ``..`` or empty segment (Terraform cleans them away,
    so the state lands in another folder than the one written); leading and trailing ``/`` are fine."""
    inner = prefix.strip("/")
    if not inner:
        return "is empty; leave it out for gke-accel/<environment>"
    bad = sorted({seg for seg in inner.split("/") if seg in ("", ".", "..")})
    if bad:
        shown = ", ".join("an empty segment ('//')" if seg == "" else f"a '{seg}' segment" for seg in bad)
        folder = state_object_prefix(prefix)
        lands = "at the top of the bucket" if folder == "." else f"under {folder}/"
        return (
            f"has {shown}; Terraform's gcs backend cleans the path (Go path.Join), so the state would land "
            f"{lands}, not where the prefix seems to point"
        )
    return None


def shared_backends(raw: Mapping[str, tuple[str, Any]]) -> list[ConfigIssue]:
    """``raw`` maps environment -> (source file, its parsed YAML). One issue per environment whose
    gcs bucket and prefix another environment file also uses: applying one would plan to destroy
    the other's resources."""
    owners: dict[tuple[str, str], list[str]] = {}
    for env, (_, data) in raw.items():
        if isinstance(data, Mapping):
            location = state_location(str(data.get("environment", env)), data.get("backend") or {})
            if location is not None:
                owners.setdefault(location, []).append(env)
    issues = []
    for (bucket, prefix), envs in sorted(owners.items()):
        for env in envs if len(envs) > 1 else []:
            others = ", ".join(e for e in envs if e != env)
            issues.append(
                ConfigIssue(
                    f"{raw[env][0]}: backend",
                    f"bucket {bucket!r} prefix {prefix!r} is also the state of {others}; "
                    "applying one environment would plan to destroy the other's resources",
                    "a bucket and prefix of its own for every environment",
                )
            )
    return issues


def shared_clusters(raw: Mapping[str, tuple[str, Any]]) -> list[ConfigIssue]:
    """One issue per environment whose project and cluster name another environment file also uses
    (a copied dev.yaml with only ``environment:`` changed): both stacks would manage one GKE cluster,
    its node pools, service accounts and key ring, and each apply would undo the other's."""
    owners: dict[tuple[str, str], list[str]] = {}
    for env, (_, data) in raw.items():
        cluster = data.get("cluster") if isinstance(data, Mapping) else None
        if isinstance(cluster, Mapping) and data.get("project_id") and cluster.get("name"):
            owners.setdefault((str(data["project_id"]), str(cluster["name"])), []).append(env)
    issues = []
    for (project, name), envs in sorted(owners.items()):
        for env in envs if len(envs) > 1 else []:
            others = ", ".join(e for e in envs if e != env)
            issues.append(
                ConfigIssue(
                    f"{raw[env][0]}: cluster.name",
                    f"{name!r} in project {project!r} is also the cluster of {others}; both stacks would "
                    "manage one cluster and each apply would undo the other's",
                    "a cluster name of its own (or another project_id) for every environment",
                )
            )
    return issues
