"""Config shapes for cluster security settings (``cluster.secrets_encryption``,
``cluster.binary_authorization``). Rules live in ``model/security/rules.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SecretsEncryptionMode = Literal["create", "key", "off"]
BinaryAuthorizationMode = Literal["enforce", "audit", "disabled"]


@dataclass(frozen=True)
class SecretsEncryptionSpec:
    """Application-layer encryption of Kubernetes Secrets in etcd with a Cloud KMS key.

    - ``create`` (default): the stack creates a key ring ``<cluster>-gke`` and a key ``secrets`` in
      the region (rotated every ``rotation_days``) and lets GKE's service agent use it.
    - ``key``: use the existing key named in ``key``
      (``projects/P/locations/<region>/keyRings/R/cryptoKeys/K``); grant GKE's service agent
      ``roles/cloudkms.cryptoKeyEncrypterDecrypter`` on it yourself.
    - ``off``: Google's default encryption only (refused for a production environment).
    """

    mode: SecretsEncryptionMode = "create"
    key: str | None = None
    rotation_days: int = 90


@dataclass(frozen=True)
class BinaryAuthorizationSpec:
    """Binary Authorization: which images may run.

    ``enforce`` and ``audit`` make the cluster evaluate the project's policy, which the stack creates:
    images matching ``allowed_images`` (plus the project's Artifact Registry in the region and the
    NVIDIA driver installer's images) are allowed, everything else is denied (``enforce``) or only
    logged (``audit``); Google-maintained system images are allowed. ``disabled`` turns evaluation
    off. Unset means ``audit``, except in a production environment, which must choose explicitly.
    """

    mode: BinaryAuthorizationMode | None = None
    allowed_images: tuple[str, ...] = ()  # name patterns, e.g. us-docker.pkg.dev/acme-ml/images/*
