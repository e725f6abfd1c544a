"""Which values the review must not print: credentials in attributes, sensitive variables and outputs,
and URLs that carry a user:password or a token. Every Markdown and JSON output shows them as
``(sensitive value)``, as ``terraform plan`` does; a Terraform reference (``${var.x}``) is no secret
and stays. Pure: no jsii, no I/O."""

from __future__ import annotations

import re
from typing import Any

from gke_accel.model.core.secrets import url_credentials

MASK = "(sensitive value)"
# attribute names that hold a credential in the google and kubernetes providers (sensitive in their schemas)
_SECRET_NAMES = re.compile(
    r"(^|_)(password|passwd|secret|token|auth_token|access_token|service_key|private_key|client_key|"
    r"client_certificate|credentials|api_key|key_data|secret_data)$"
)
_SECRET_PATHS = ("sensitive_labels", "data.", "binary_data.")  # sensitive_labels.*; kubernetes_secret data
_SECRET_RESOURCES = {"google_monitoring_notification_channel": ("labels.url",)}  # webhook_tokenauth URL
_REFERENCE = re.compile(r"^\$\{[^}]+\}$")


def sensitive_path(rtype: str, path: str) -> bool:
    leaf = re.sub(r"\[\d+\]", "", path)
    last = leaf.rsplit(".", 1)[-1]
    return (
        bool(_SECRET_NAMES.search(last))
        or leaf.startswith(_SECRET_PATHS[0])
        or (rtype.startswith("kubernetes_secret") and leaf.startswith(_SECRET_PATHS[1:]))
        or leaf in _SECRET_RESOURCES.get(rtype, ())
    )


def mask(rtype: str, path: str, value: Any) -> Any:
    """``value`` as the review may show it."""
    if value is None or (isinstance(value, str) and _REFERENCE.match(value)):
        return value
    if sensitive_path(rtype, path) or (isinstance(value, str) and url_credentials(value)):
        return MASK
    if isinstance(value, list):
        return [MASK if isinstance(v, str) and url_credentials(v) else v for v in value]
    return value
