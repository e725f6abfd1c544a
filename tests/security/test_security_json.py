"""Security in the synthesized stacks: credentials not in state, secrets encryption, Binary
Authorization policy, prevent_destroy in production, team fences as typed resources."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import one, resources

ENVS = ("dev", "staging", "prod")


def _cluster(doc: dict[str, Any]) -> dict[str, Any]:
    (cluster,) = resources(doc, "google_container_cluster")
    return cluster


@pytest.mark.parametrize("env", ENVS)
def test_no_access_token_is_read_into_terraform_state(shipped: dict[str, Any], env: str) -> None:
    doc = shipped[env]
    assert "google_client_config" not in doc.get("data", {})
    (provider,) = doc["provider"]["kubernetes"]
    assert "token" not in provider and provider["exec"][0]["command"] == "gke-gcloud-auth-plugin"


@pytest.mark.parametrize("env", ENVS)
def test_secrets_are_encrypted_with_a_rotated_kms_key_gke_may_use(shipped: dict[str, Any], env: str) -> None:
    doc = shipped[env]
    (key,) = resources(doc, "google_kms_crypto_key")
    assert key["name"] == "secrets" and key["rotation_period"] == "7776000s" and key["purpose"] == "ENCRYPT_DECRYPT"
    (ring,) = resources(doc, "google_kms_key_ring")
    assert ring["location"] == "us-central1" and ring["name"] == f"ml-{env}-gke"
    encryption = _cluster(doc)["database_encryption"]
    assert encryption["state"] == "ENCRYPTED" and encryption["key_name"].startswith("${google_kms_crypto_key.")
    (grant,) = resources(doc, "google_kms_crypto_key_iam_member")
    assert grant["role"] == "roles/cloudkms.cryptoKeyEncrypterDecrypter"
    assert grant["member"].endswith("@container-engine-robot.iam.gserviceaccount.com")
    assert any(d.startswith("google_kms_crypto_key_iam_member.") for d in _cluster(doc)["depends_on"])


@pytest.mark.parametrize(
    ("env", "enforcement"), [("dev", "DRYRUN_AUDIT_LOG_ONLY"), ("prod", "ENFORCED_BLOCK_AND_AUDIT_LOG")]
)
def test_binary_authorization_evaluates_a_policy_the_stack_creates(
    shipped: dict[str, Any], env: str, enforcement: str
) -> None:
    doc = shipped[env]
    assert _cluster(doc)["binary_authorization"]["evaluation_mode"] == "PROJECT_SINGLETON_POLICY_ENFORCE"
    (policy,) = resources(doc, "google_binary_authorization_policy")
    assert policy["project"] == f"acme-ml-{env}"
    assert policy["default_admission_rule"] == {"evaluation_mode": "ALWAYS_DENY", "enforcement_mode": enforcement}
    assert policy["global_policy_evaluation_mode"] == "ENABLE"
    patterns = [p["name_pattern"] for p in policy["admission_whitelist_patterns"]]
    assert f"us-central1-docker.pkg.dev/acme-ml-{env}/*" in patterns and "*" not in patterns


def _protected(doc: dict[str, Any], rtype: str) -> list[bool]:
    return [r.get("lifecycle", {}).get("prevent_destroy") is True for r in resources(doc, rtype)]


def test_production_cannot_be_destroyed_by_terraform(shipped: dict[str, Any]) -> None:
    doc = shipped["prod"]
    assert _protected(doc, "google_container_cluster") == [True]
    assert _protected(doc, "google_storage_bucket") == [True]
    assert _protected(doc, "google_kms_crypto_key") == [True]
    pools = {
        r["name"]: r.get("lifecycle", {}).get("prevent_destroy") for r in resources(doc, "google_container_node_pool")
    }
    # the system pool and the CPU pool hold no scarce capacity: replaced freely, like any stateless pool
    assert pools.pop("system") is None and pools.pop("cpu") is None and pools and all(pools.values()), pools
    assert one(doc, "google_storage_bucket")["force_destroy"] is False


@pytest.mark.parametrize("env", ["dev", "staging"])
def test_other_environments_can_be_torn_down(shipped: dict[str, Any], env: str) -> None:
    doc = shipped[env]
    for rtype in ("google_container_cluster", "google_container_node_pool", "google_storage_bucket"):
        assert not any(_protected(doc, rtype)), rtype


def test_team_fences_are_typed_resources(shipped: dict[str, Any]) -> None:
    doc = shipped["dev"]
    namespaces = {r["metadata"]["name"]: r["metadata"]["labels"] for r in resources(doc, "kubernetes_namespace_v1")}
    assert namespaces["nlp"]["pod-security.kubernetes.io/enforce"] == "restricted"
    roles = resources(doc, "kubernetes_role_v1")
    assert {r["metadata"]["namespace"] for r in roles} == {"nlp", "vision"}
    rule = next(r for r in roles[0]["rule"] if "networkpolicies" in r["resources"])
    assert rule["verbs"] == ["get", "list", "watch"]
    for binding in resources(doc, "kubernetes_role_binding_v1"):
        assert binding["role_ref"]["kind"] == "Role" and binding["role_ref"]["name"] == "team-member"


def test_synth_of_one_environment_leaves_only_its_stack(tmp_path: Any) -> None:
    """``synth --env dev`` after a full synth: prod's old stack is gone, so ``scan`` cannot scan it."""
    from stacks.app import synth_environments

    from gke_accel.model import load_environment_text
    from helpers import base_config, set_path, to_yaml

    plans = {n: load_environment_text(to_yaml(set_path(base_config(), "environment", n))) for n in ("dev", "prod")}
    out = tmp_path / "cdktf.out"
    synth_environments(list(plans.values()), out)
    (out / "stacks" / "prod" / "terraform.prod.tfstate").write_text("{}")  # local state is never deleted
    synth_environments([plans["dev"]], out)
    assert [p.parent.name for p in (out / "stacks").glob("*/cdk.tf.json")] == ["dev"]
    assert sorted(p.name for p in (out / "stacks" / "prod").iterdir()) == ["terraform.prod.tfstate"]
