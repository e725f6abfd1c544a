"""Guard rails: rules every environment follows, stricter ones for ``production: true``. The check
that no two environment files share a Terraform state location or a cluster is ``state.py``."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from typing import Protocol

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.security.spec import BinaryAuthorizationSpec, SecretsEncryptionSpec


class _Network(Protocol):
    @property
    def cidr(self) -> str: ...


class GuardedCluster(Protocol):
    """What the guard rails read of ``cluster:`` (``ClusterSpec`` has it; the cluster package
    imports this one's config shapes, so this one names only the fields it checks)."""

    @property
    def master_authorized_networks(self) -> Sequence[_Network]: ...

    @property
    def deletion_protection(self) -> bool: ...

    @property
    def deletion_protection_reason(self) -> str | None: ...

    @property
    def secrets_encryption(self) -> SecretsEncryptionSpec: ...

    @property
    def binary_authorization(self) -> BinaryAuthorizationSpec: ...


KMS_KEY = re.compile(
    r"^projects/(?P<project>[a-z][a-z0-9-]{4,28}[a-z0-9])/locations/(?P<location>[a-z0-9-]+)"
    r"/keyRings/[A-Za-z0-9_-]{1,63}/cryptoKeys/[A-Za-z0-9_-]{1,63}$"
)
IMAGE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.-]*\.[a-z]{2,}(:[0-9]+)?/[A-Za-z0-9._/@:*-]+$")
MAX_ROTATION_DAYS = 90  # CIS / checkov CKV_GCP_43
MIN_REASON = 10


# Address blocks that are not public (IANA special-purpose registries, RFC 6890: private-use, shared
# 100.64/10, loopback, link-local, documentation, benchmarking, multicast, reserved): a range inside
# these reaches the control plane only over VPN, Interconnect or peering.
NOT_PUBLIC = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/127", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10",
        "ff00::/8",
    )
)  # fmt: skip
# The documented bound (docs/security.md): public ranges together may open the control plane to at most
# a /16 worth of addresses (65,536 IPv4; a /48 in IPv6), e.g. a few office or NAT egress ranges.
PUBLIC_BOUND = {4: 16, 6: 48}


def _public_addresses(nets: list[ipaddress.IPv4Network | ipaddress.IPv6Network], version: int) -> int:
    """How many public addresses the union of ``nets`` (one IP version) covers."""
    spans = sorted((int(n.network_address), int(n.broadcast_address)) for n in nets if n.version == version)
    union: list[list[int]] = []
    for start, end in spans:
        if union and start <= union[-1][1] + 1:
            union[-1][1] = max(union[-1][1], end)
        else:
            union.append([start, end])
    total = sum(end - start + 1 for start, end in union)
    for block in (b for b in NOT_PUBLIC if b.version == version):
        lo, hi = int(block.network_address), int(block.broadcast_address)
        total -= sum(max(0, min(end, hi) - max(start, lo) + 1) for start, end in union)
    return total


_Net = ipaddress.IPv4Network | ipaddress.IPv6Network
_ALLOWED_NETWORKS = (
    "private ranges (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10), and public ranges that "
    "together cover at most a /16 (IPv6: a /48), such as an office's /24"
)


def _whole(version: int) -> int:
    return _public_addresses([ipaddress.ip_network("0.0.0.0/0" if version == 4 else "::/0")], version)


def _check_authorized_networks(cluster: GuardedCluster, production: bool, issues: IssueCollector) -> None:
    """No range, and no set of ranges, opens the control plane to the internet: public ranges together
    stay within ``PUBLIC_BOUND``; in production every range is private."""
    nets: list[tuple[str, _Net]] = []
    for i, entry in enumerate(cluster.master_authorized_networks):
        try:
            nets.append(
                (f"cluster.master_authorized_networks[{i}].cidr", ipaddress.ip_network(entry.cidr, strict=True))
            )
        except ValueError:
            continue  # reported by the cluster rules
    for version in (4, 6):
        public = [(p, n) for p, n in nets if n.version == version and _public_addresses([n], version)]
        if not public:
            continue
        bound = 2 ** ((32 if version == 4 else 128) - PUBLIC_BOUND[version])
        whole = [(p, n) for p, n in public if _public_addresses([n], version) == _whole(version)]
        for path, net in whole:
            issues.bad(path, str(net), "opens the control plane to the whole internet", _ALLOWED_NETWORKS)
        if whole:
            continue
        if _public_addresses([n for _, n in public], version) == _whole(version):
            issues.bad(
                "cluster.master_authorized_networks",
                [str(n) for _, n in public],
                "together open the control plane to the whole internet",
                _ALLOWED_NETWORKS,
            )
            continue
        for path, net in public:
            if production:
                issues.bad(
                    path,
                    str(net),
                    "is a public range; a production control plane accepts private ranges only",
                    "RFC 1918 ranges such as 10.0.0.0/8 (reach it over VPN or Interconnect)",
                )
            elif _public_addresses([net], version) > bound:
                issues.bad(path, str(net), f"is a public range wider than /{PUBLIC_BOUND[version]}", _ALLOWED_NETWORKS)
        total = _public_addresses([n for _, n in public], version)
        if not production and len(public) > 1 and total > bound:
            issues.bad(
                "cluster.master_authorized_networks",
                [str(n) for _, n in public],
                f"together open the control plane to {total:,} public addresses",
                _ALLOWED_NETWORKS,
            )


def _check_deletion_protection(c: GuardedCluster, production: bool, issues: IssueCollector) -> None:
    reason = (c.deletion_protection_reason or "").strip()
    if c.deletion_protection_reason is not None and c.deletion_protection:
        issues.bad(
            "cluster.deletion_protection_reason",
            c.deletion_protection_reason,
            "is only used to turn deletion protection off",
            "leave it out, or set deletion_protection: false",
        )
    if production and not c.deletion_protection and len(reason) < MIN_REASON:
        issues.bad(
            "cluster.deletion_protection",
            False,
            "turns off deletion protection (and prevent_destroy) of a production environment without a reason",
            "true, or cluster.deletion_protection_reason: why, who decided, until when",
        )


def _check_secrets_encryption(se: SecretsEncryptionSpec, production: bool, region: str, issues: IssueCollector) -> None:
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
        elif match["location"] != region:
            issues.bad(
                f"{path}.key",
                se.key,
                f"is in {match['location']}; GKE needs the key in the cluster's region",
                region,
            )
    elif se.key is not None:
        issues.bad(f"{path}.key", se.key, "is only used with mode: key", "leave it out, or mode: key")
    if not 1 <= se.rotation_days <= MAX_ROTATION_DAYS:
        issues.bad(f"{path}.rotation_days", se.rotation_days, "is out of range", f"1 to {MAX_ROTATION_DAYS}")
    if production and se.mode == "off":
        issues.bad(f"{path}.mode", "off", "is not allowed in a production environment", ["create", "key"])


def _check_binary_authorization(ba: BinaryAuthorizationSpec, production: bool, issues: IssueCollector) -> None:
    path = "cluster.binary_authorization"
    if production and ba.mode in (None, "disabled"):
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


def check_security(
    cluster: GuardedCluster, *, production: bool, region: str, backend_type: str, issues: IssueCollector
) -> None:
    """Add an issue for every guard-rail violation of one environment: its cluster's settings,
    whether it is production, its region and where its Terraform state lives."""
    _check_authorized_networks(cluster, production, issues)
    _check_deletion_protection(cluster, production, issues)
    _check_secrets_encryption(cluster.secrets_encryption, production, region, issues)
    _check_binary_authorization(cluster.binary_authorization, production, issues)
    if production and backend_type != "gcs":
        issues.bad(
            "backend.type",
            backend_type,
            "keeps the state of a production environment on one machine",
            "gcs (a versioned bucket with restricted access; see docs/security.md)",
        )
