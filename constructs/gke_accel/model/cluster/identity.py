"""Names derived from the cluster name that Google Cloud limits separately."""

from __future__ import annotations

import hashlib

SA_ID_MAX = 30  # service account ids: 6-30 characters, [a-z][-a-z0-9]*[a-z0-9]
_SUFFIX = "-nodes"


def node_service_account_id(cluster_name: str) -> str:
    """The node service account id: ``<cluster>-nodes`` while that fits in 30 characters; for
    longer names a shortened name plus a 4-character hash, so the id stays valid (never ends in
    ``-``) and two long names that share a prefix still get different accounts."""
    plain = cluster_name + _SUFFIX
    if len(plain) <= SA_ID_MAX:
        return plain
    digest = hashlib.sha256(cluster_name.encode()).hexdigest()[:4]
    head = cluster_name[: SA_ID_MAX - len(_SUFFIX) - len(digest) - 1].rstrip("-")
    return f"{head}-{digest}{_SUFFIX}"
