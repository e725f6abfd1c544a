"""Guard rails: rules every environment follows, stricter ones for ``production: true``, and the
check that no two environment files share a Terraform state location."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from gke_accel.model.core.errors import ConfigIssue, IssueCollector
from gke_accel.model.environment.spec import EnvironmentSpec

KMS_KEY = re.compile(
    r"^projects/(?P<project>[a-z][a-z0-9-]{4,28}[a-z0-9])/locations/(?P<location>[a-z0-9-]+)"
    r"/keyRings/[A-Za-z0-9_-]{1,63}/cryptoKeys/[A-Za-z0-9_-]{1,63}$"
)
IMAGE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.-]*\.[a-z]{2,}(:[0-9]+)?/[A-Za-z0-9._/@:*-]+$")
MAX_ROTATION_DAYS = 90  # CIS / checkov CKV_GCP_43
MIN_REASON = 10


def _check_authorized_networks(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    for i, entry in enumerate(spec.cluster.master_authorized_networks):
        try:
            net = ipaddress.ip_network(entry.cidr, strict=True)
        except ValueError:
            continue  # reported by the cluster rules
        path = f"cluster.master_authorized_networks[{i}].cidr"
        if net.prefixlen == 0:
            issues.bad(path, entry.cidr, "opens the control plane to the whole internet", "a private range or a /24")
        elif spec.production and net.is_global:
            issues.bad(
                path,
                entry.cidr,
                "is a public range; a production control plane accepts private ranges only",
                "RFC 1918 ranges such as 10.0.0.0/8 (reach it over VPN or Interconnect)",
            )


def _check_deletion_protection(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    c = spec.cluster
    reason = (c.deletion_protection_reason or "").strip()
    if c.deletion_protection_reason is not None and c.deletion_protection:
        issues.bad(
            "cluster.deletion_protection_reason",
            c.deletion_protection_reason,
            "is only used to turn deletion protection off",
            "leave it out, or set deletion_protection: false",
        )
    if spec.production and not c.deletion_protection and len(reason) < MIN_REASON:
        issues.bad(
            "cluster.deletion_protection",
            False,
            "turns off deletion protection (and prevent_destroy) of a production environment without a reason",
            "true, or cluster.deletion_protection_reason: why, who decided, until when",
        )


def _check_secrets_encryption(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    se = spec.cluster.secrets_encryption
    path = "cluster.secrets_encryption"
    if se.mode == "key":
        match = KMS_KEY.match(se.key or "")
        if match is None:
            issues.bad(
                f"{path}.key",
                se.key,
                "is not a Cloud KMS key name",
                "projects/P/locations/REGION/keyRings/R/cryptoKeys/K",
            )
        elif match["location"] != spec.region:
            issues.bad(
                f"{path}.key",
                se.key,
                f"is in {match['location']}; GKE needs the key in the cluster's region",
                spec.region,
            )
    elif se.key is not None:
        issues.bad(f"{path}.key", se.key, "is only used with mode: key", "leave it out, or mode: key")
    if not 1 <= se.rotation_days <= MAX_ROTATION_DAYS:
        issues.bad(f"{path}.rotation_days", se.rotation_days, "is out of range", f"1 to {MAX_ROTATION_DAYS}")
    if spec.production and se.mode == "off":
        issues.bad(f"{path}.mode", "off", "is not allowed in a production environment", ["create", "key"])


def _check_binary_authorization(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    ba = spec.cluster.binary_authorization
    path = "cluster.binary_authorization"
    if spec.production and ba.mode in (None, "disabled"):
        issues.bad(
            f"{path}.mode",
            ba.mode,
            "must be set explicitly, and not disabled, in a production environment",
            ["enforce", "audit"],
        )
    if ba.mode == "disabled" and ba.allowed_images:
        issues.bad(f"{path}.allowed_images", list(ba.allowed_images), "is not used when mode is disabled", "[]")
    for i, pattern in enumerate(ba.allowed_images):
        if not IMAGE_PATTERN.match(pattern):
            issues.bad(
                f"{path}.allowed_images[{i}]",
                pattern,
                "is not an image name pattern under a registry host (a bare '*' would allow every image)",
                "e.g. us-docker.pkg.dev/acme-ml/images/*",
            )


def check_security(spec: EnvironmentSpec, issues: IssueCollector) -> None:
    """Add an issue for every guard-rail violation of one environment."""
    _check_authorized_networks(spec, issues)
    _check_deletion_protection(spec, issues)
    _check_secrets_encryption(spec, issues)
    _check_binary_authorization(spec, issues)
    if spec.production and spec.backend.type != "gcs":
        issues.bad(
            "backend.type",
            spec.backend.type,
            "keeps the state of a production environment on one machine",
            "gcs (a versioned bucket with restricted access; see docs/security.md)",
        )


def state_location(environment: str, backend: Mapping[str, Any]) -> tuple[str, str] | None:
    """(bucket, prefix) of a gcs backend as written in a config file, else None."""
    if not isinstance(backend, Mapping) or backend.get("type") != "gcs" or not backend.get("bucket"):
        return None
    prefix = str(backend.get("prefix") or f"gke-accel/{environment}").strip("/")
    return str(backend["bucket"]), prefix


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
