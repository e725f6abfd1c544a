"""Two different label syntaxes, each checked by its own rules.

- Kubernetes node labels (a pool's ``labels``, set on its nodes): an optional DNS-subdomain prefix
  and ``/``, then a name of up to 63 characters from letters (either case), digits, ``-``, ``_``
  and ``.``, starting and ending with a letter or digit; values the same, or empty.
- GCP resource labels (``labels`` of the environment and cluster): keys start with a lowercase
  letter; keys and values use lowercase letters, digits, ``_`` and ``-``, at most 63 characters;
  at most 64 labels per resource.
"""

from __future__ import annotations

import re

from gke_accel.model.core.errors import IssueCollector

_K8S_NAME = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*")
GCP_LABEL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
GCP_LABEL_VALUE = re.compile(r"[a-z0-9_-]{0,63}")
MAX_GCP_LABELS = 64
# Prefixes whose node labels GKE, the kubelet or gke-accel itself set: a user label there would
# be refused by the API server (node-restriction) or would silently override a derived label.
RESERVED_NODE_LABEL_PREFIXES = ("kubernetes.io", "k8s.io", "cloud.google.com", "gke-accel")
K8S_LABEL_HELP = "[prefix/]name: name up to 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric"
GCP_LABEL_HELP = "lowercase letters, digits, '_' and '-', keys starting with a letter, at most 63 characters"


def node_label_key_problem(key: str) -> str | None:
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return "has a prefix that is not a DNS subdomain"
    if not _K8S_NAME.fullmatch(name):
        return "is not a valid Kubernetes label key"
    if slash and any(prefix == r or prefix.endswith("." + r) for r in RESERVED_NODE_LABEL_PREFIXES):
        return "uses a prefix GKE, Kubernetes or gke-accel reserves for the labels it sets"
    return None


def check_node_labels(labels: dict[str, str], path: str, issues: IssueCollector) -> None:
    """Kubernetes label syntax, for labels that end up on nodes."""
    for key, value in labels.items():
        problem = node_label_key_problem(key)
        if problem:
            issues.bad(f"{path}.{key[:80]}", key, problem, K8S_LABEL_HELP)
        if value and not _K8S_NAME.fullmatch(value):
            issues.bad(f"{path}.{key[:80]}", value, "is not a valid Kubernetes label value", K8S_LABEL_HELP)


def check_resource_labels(labels: dict[str, str], path: str, issues: IssueCollector) -> None:
    """GCP label syntax, for labels on Google Cloud resources."""
    if len(labels) > MAX_GCP_LABELS:
        issues.bad(path, labels, f"has {len(labels)} labels", f"at most {MAX_GCP_LABELS}")
    for key, value in labels.items():
        if not GCP_LABEL_KEY.fullmatch(key):
            issues.bad(f"{path}.{key[:80]}", key, "is not a valid GCP label key", GCP_LABEL_HELP)
        if not GCP_LABEL_VALUE.fullmatch(value):
            issues.bad(f"{path}.{key[:80]}", value, "is not a valid GCP label value", GCP_LABEL_HELP)
