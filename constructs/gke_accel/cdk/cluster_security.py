"""Cluster security resources: the Cloud KMS key that encrypts Kubernetes Secrets, the project's
Binary Authorization policy, and ``prevent_destroy`` for what a production environment must keep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_accel.cdk._framework import Construct, TerraformResourceLifecycle
from gke_accel.cdk._providers import (
    BinaryAuthorizationPolicy,
    DataGoogleProject,
    KmsCryptoKey,
    KmsCryptoKeyIamMember,
    KmsKeyRing,
    binauthz_structs,
)
from gke_accel.cdk.policy import skip_check

KMS_ROLE = "roles/cloudkms.cryptoKeyEncrypterDecrypter"
SECONDS_PER_DAY = 86400


def prevent_destroy(resources: Sequence[Any]) -> None:
    """``lifecycle { prevent_destroy = true }``: Terraform refuses any plan that destroys or replaces them."""
    for resource in resources:
        resource.add_override("lifecycle.prevent_destroy", True)


class SecretsKey(Construct):
    """A key ring ``<cluster>-gke`` and key ``secrets`` in the region, rotated every ``rotation_days``,
    usable by GKE's service agent. ``key_name`` is for ``database_encryption``; ``grant`` must exist
    before the cluster uses the key."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        project: str,
        region: str,
        cluster_name: str,
        rotation_days: int,
        protect: bool,
        labels: dict[str, str],
        project_number: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        # The project number from config when given (the stack then plans offline); else read from the API.
        number = project_number or DataGoogleProject(self, "project", project_id=project).number
        ring = KmsKeyRing(self, "ring", project=project, name=f"{cluster_name}-gke", location=region)
        key = KmsCryptoKey(
            self,
            "key",
            name="secrets",
            key_ring=ring.id,
            purpose="ENCRYPT_DECRYPT",
            rotation_period=f"{rotation_days * SECONDS_PER_DAY}s",
            labels=labels,
            lifecycle=TerraformResourceLifecycle(prevent_destroy=True) if protect else None,
        )
        if not protect:
            skip_check(
                key, "CKV_GCP_82", "not a production environment: destroying it may schedule its key's destruction"
            )
        self.grant = KmsCryptoKeyIamMember(
            self,
            "gke-agent",
            crypto_key_id=key.id,
            role=KMS_ROLE,
            member=f"serviceAccount:service-{number}@container-engine-robot.iam.gserviceaccount.com",
        )
        self.key_name: str = key.id


class ImagePolicy(Construct):
    """The project's Binary Authorization policy: allowed name patterns pass; everything else is
    denied (``enforce``) or only logged (``audit``); Google-maintained system images pass."""

    def __init__(self, scope: Construct, id: str, *, project: str, mode: str, patterns: Sequence[str]) -> None:
        super().__init__(scope, id)
        s = binauthz_structs
        self.policy = BinaryAuthorizationPolicy(
            self,
            "policy",
            project=project,
            description=f"gke-accel: images allowed on the clusters of {project} ({mode})",
            global_policy_evaluation_mode="ENABLE",
            admission_whitelist_patterns=[
                s.BinaryAuthorizationPolicyAdmissionWhitelistPatterns(name_pattern=p) for p in patterns
            ],
            default_admission_rule=s.BinaryAuthorizationPolicyDefaultAdmissionRule(
                evaluation_mode="ALWAYS_DENY",
                enforcement_mode="ENFORCED_BLOCK_AND_AUDIT_LOG" if mode == "enforce" else "DRYRUN_AUDIT_LOG_ONLY",
            ),
        )
